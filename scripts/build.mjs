#!/usr/bin/env node
// Builds dist/ from src/ with esbuild: one ESM bundle per entry point (the server, the CLI, the
// PGlite image maker) with the packages they import, linked source maps so stack traces name src/
// lines; then the migrated PGlite image a first start copies (src/platform/db/pglite-image.ts).
// Bundling the packages too spares Node resolving and reading some 400 files at every start
// (decision 016); the few that find files of their own next to them at run time stay outside.
// `npm install` runs it (prepare); `npm start` and `npm run cli` bundle again only when a source is
// newer than the last build, so no TypeScript is compiled at run time otherwise. The browser console
// (console/, served at /console) is bundled into dist/console/ at the same time: hashed file names, an
// index.html naming the entry's script and style, nothing fetched from elsewhere (decision 160).
//
//   node scripts/build.mjs              bundle, then make the PGlite image
//   node scripts/build.mjs --if-stale   bundle only, and only when src/ changed since the last build
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const stamp = path.join(dist, '.built');
export const ENTRY_POINTS = ['src/main.ts', 'src/cli.ts', 'src/platform/db/pglite-image.ts'];
/**
 * Left to Node: ccxt (loaded on the first exchange call, and larger than everything else together),
 * PGlite (its WebAssembly and data files sit beside its modules), the docs UI (serves its own static
 * directory), and native add-ons that packages try to load and do without.
 */
const EXTERNAL = [
  'ccxt',
  '@electric-sql/pglite',
  '@electric-sql/pglite/*',
  '@fastify/swagger-ui',
  'pg-native',
  'bufferutil',
  'utf-8-validate',
];

function newestSource(dir, newest = 0) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = newestSource(full, newest);
    else if (!entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** True when dist/ is missing or older than any source file or the package manifests. */
export function isStale() {
  let built;
  try {
    built = statSync(stamp).mtimeMs;
  } catch {
    return true;
  }
  const manifests = ['package.json', 'package-lock.json'].map((file) => statSync(path.join(root, file)).mtimeMs);
  return Math.max(newestSource(path.join(root, 'src')), newestSource(path.join(root, 'console')), ...manifests) > built;
}

export async function bundle() {
  const started = performance.now();
  await withEsbuild(async (esbuild) => {
    rmSync(dist, { recursive: true, force: true });
    await esbuild({
      absWorkingDir: root,
      entryPoints: ENTRY_POINTS,
      outdir: dist,
      outbase: 'src',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      external: EXTERNAL,
      // Bundled CommonJS packages call require(); ESM output has none of its own.
      banner: {
        js:
          "import { createRequire as __createRequire } from 'node:module'; const require = " +
          '__createRequire(import.meta.url);',
      },
      sourcemap: 'linked',
      // Stack traces need the mappings, not the sources: without them the maps (parsed at start) are a
      // fraction of the size, and so is the memory they hold.
      sourcesContent: false,
      // Without whitespace and comments the sources V8 keeps for lazy compilation, and their line tables,
      // are a third smaller (idle RSS); stack traces still name src/ lines through the maps.
      minifyWhitespace: true,
      logLevel: 'warning',
    });
    asciiOnly(dist);
    await bundleConsole(esbuild);
  });
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  return performance.now() - started;
}

/**
 * Runs `work` with esbuild's `build`, then ends esbuild's service process. The service outlives a build
 * (it is kept for the next call) and holds about 280 MiB: left running, it stayed beside every server that
 * `npm start` built first, and beside the whole test run.
 */
export async function withEsbuild(work) {
  const { build, stop } = await import('esbuild');
  try {
    return await work(build);
  } finally {
    await stop();
  }
}

/**
 * esbuild escapes non-ASCII characters in code but copies the comments it keeps as they are. One `→` in
 * a comment makes V8 hold the whole chunk's source (which it keeps for lazy compilation) as a two-byte
 * string: twice the memory, about 6 MB for the server's main chunk. The comments' characters are escaped
 * too, so every source stays one byte per character.
 */
function asciiOnly(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    if (!/[\u0080-\uffff]/.test(text)) continue;
    writeFileSync(
      file,
      text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    );
  }
}

/**
 * The console: Preact and lightweight-charts bundled for the browser, split at each page's dynamic
 * import so the first page loads only the shell, sign-in and the markets table. Files are named by
 * their content's hash (cached for a year); index.html, which names them, is never cached.
 */
async function bundleConsole(esbuild) {
  const out = path.join(dist, 'console');
  const assets = path.join(out, 'assets');
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: { main: 'console/src/main.tsx' },
    outdir: assets,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    legalComments: 'linked',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  const outputs = Object.entries(result.metafile.outputs);
  const name = (file) => path.basename(file);
  const script = outputs.find(([file, meta]) => meta.entryPoint === 'console/src/main.tsx' && file.endsWith('.js'));
  const style = outputs.find(([file]) => file.endsWith('.css') && name(file).startsWith('main-'));
  if (!script) throw new Error('the console bundle has no entry script');
  const template = readFileSync(path.join(root, 'console', 'index.html'), 'utf8');
  const html = template
    .replace('<!--style-->', style ? `<link rel="stylesheet" href="/console/assets/${name(style[0])}">` : '')
    .replace('<!--script-->', `<script type="module" src="/console/assets/${name(script[0])}"></script>`);
  writeFileSync(path.join(out, 'index.html'), html);
}

/** Builds when stale; answers whether it built. */
export async function ensureBuilt() {
  if (!isStale()) return false;
  await bundle();
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv.includes('--if-stale')) {
    if (await ensureBuilt()) process.stderr.write('built dist/ from src/\n');
  } else {
    const ms = await bundle();
    process.stderr.write(`built dist/ from src/ in ${Math.round(ms)} ms\n`);
    const started = performance.now();
    const { writePgliteImage } = await import(pathToFileURL(path.join(dist, 'platform', 'db', 'pglite-image.js')).href);
    const image = await writePgliteImage();
    process.stderr.write(
      `made the migrated PGlite image ${path.relative(root, image)} in ${Math.round(performance.now() - started)} ms\n`,
    );
  }
}
