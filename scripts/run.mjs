#!/usr/bin/env node
// Runs an entry point of dist/ (`main`: the server, `cli`: the operator commands), building dist/
// first when a source file is newer than it. Stack traces name src/ lines through the source maps.
import { enableCompileCache } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { ensureBuilt } from './build.mjs';
import { mapStackTraces } from './stack-traces.mjs';

const DIST = pathToFileURL(path.join(import.meta.dirname, '..', 'dist') + path.sep).href;

/** Says so when this Node is outside package.json's engines (the lines CI tests), and goes on. */
function warnIfUntestedNode() {
  const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const [major, minor, patch] = process.versions.node.split('.').map(Number);
  const supported = [...engines.node.matchAll(/\^(\d+)\.(\d+)\.(\d+)/g)].some(
    ([, M, m, p]) => major === Number(M) && (minor > Number(m) || (minor === Number(m) && patch >= Number(p))),
  );
  if (!supported) {
    process.stderr.write(
      `warning: Node ${process.version} is outside the versions this service supports and is tested on ` +
        `(${engines.node}); run it on one of them, e.g. npx --yes -p node@24 npm start\n`,
    );
  }
}

const [entry] = process.argv.splice(2, 1);
if (entry !== 'main' && entry !== 'cli') {
  process.stderr.write('usage: node scripts/run.mjs main|cli [arguments]\n');
  process.exit(2);
}
warnIfUntestedNode();
await ensureBuilt();
// V8's compiled code for dist/ kept beside it and read back at the next start, instead of compiling the
// bundles again each time (decision 1480). A build empties dist/, and the cache with it; where dist/ is
// not writable the cache is off and the start goes on as before.
enableCompileCache(path.join(import.meta.dirname, '..', 'dist', '.compile-cache'));
mapStackTraces(DIST);
await import(pathToFileURL(path.join(import.meta.dirname, '..', 'dist', `${entry}.js`)).href);
