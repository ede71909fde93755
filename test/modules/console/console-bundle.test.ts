// What the first page of the console costs: its entry script and every chunk that script imports
// statically (dynamic imports load later), measured gzipped from the built files.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { PROJECT_ROOT } from '../../../src/platform/project-root.ts';

const ASSETS = path.join(PROJECT_ROOT, 'dist', 'console', 'assets');
const LIMIT = 250 * 1024;

/** The files a module loads before it runs: its static imports, transitively. */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const code = readFileSync(path.join(ASSETS, file), 'utf8');
  // esbuild writes `import{a as b}from"./chunk-X.js"` and `import"./chunk-X.js"`; `import("./x.js")` is dynamic.
  for (const match of code.matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)) staticClosure(match[1]!, seen);
  return seen;
}

describe('the console bundle', () => {
  const html = readFileSync(path.join(PROJECT_ROOT, 'dist', 'console', 'index.html'), 'utf8');
  const entry = /src="\/console\/assets\/([^"]+\.js)"/.exec(html)![1]!;
  const initial = staticClosure(entry);

  it('loads at most 250 KB of gzipped JavaScript on the first page', () => {
    const total = [...initial].reduce((sum, file) => sum + gzipSync(readFileSync(path.join(ASSETS, file))).length, 0);
    assert.ok(total <= LIMIT, `${total} bytes gzipped over ${initial.size} files`);
    assert.ok(total > 5 * 1024, `${total} bytes: the measure found the entry's code`);
  });

  it('leaves the chart library out of the first page: it comes with the pair page', () => {
    const first = [...initial].map((file) => readFileSync(path.join(ASSETS, file), 'utf8')).join('\n');
    // lightweight-charts names its root element so.
    const marker = /tv-lightweight-charts/;
    assert.doesNotMatch(first, marker);
    const chartChunks = readdirSync(ASSETS).filter(
      (file) => file.endsWith('.js') && marker.test(readFileSync(path.join(ASSETS, file), 'utf8')),
    );
    assert.equal(chartChunks.length, 1, 'one chunk holds the chart library');
    assert.match(
      readFileSync(path.join(ASSETS, entry), 'utf8'),
      /import\("\.\/[^"]+\.js"\)/,
      'the entry loads later pages dynamically',
    );
  });
});
