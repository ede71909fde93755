// Stack traces of the built server name src/ lines (scripts/run.mjs installs this before it loads dist/).
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Stack frames in dist/ name their src/ line, read from dist's source maps when a trace is first
 * formatted. Node's own source-map support (`--enable-source-maps`) parses every map at start and keeps
 * it with each module's line table: about 6 MB held by a process that may never print a stack.
 */
export function mapStackTraces(dist) {
  /** dist file URL → its map, or null when it has none. */
  const maps = new Map();
  const mapOf = (url) => {
    if (!maps.has(url)) {
      let map = null;
      try {
        const payload = JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8'));
        // The map names its sources relative to itself.
        payload.sources = payload.sources.map((source) => new URL(source, `${url}.map`).href);
        map = new SourceMap(payload);
      } catch {
        // no map: the frame keeps its dist/ position
      }
      maps.set(url, map);
    }
    return maps.get(url);
  };
  const frameText = (frame) => {
    const text = String(frame);
    const url = frame.getFileName();
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    if (!url?.startsWith(dist) || !line || !column) return text;
    const entry = mapOf(url)?.findEntry(line - 1, column - 1);
    if (!entry?.originalSource) return text;
    const original = `${fileURLToPath(entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    const position = `${url}:${line}:${column}`;
    return text.includes(position) ? text.replace(position, original) : `${text} [${original}]`;
  };
  Error.prepareStackTrace = (error, frames) => {
    let head;
    try {
      head = Error.prototype.toString.call(error);
    } catch {
      head = '<error>';
    }
    return [head, ...frames.map((frame) => `    at ${frameText(frame)}`)].join('\n');
  };
}
