// The built server (dist/, which the test runner builds before any file runs): what scripts/build.mjs
// and scripts/run.mjs promise about it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST = path.join(ROOT, 'dist');
const serverModules = () =>
  readdirSync(DIST, { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.js') && !file.startsWith(`console${path.sep}`),
  );

/** dist/main.js and every chunk it imports statically, at any depth: what a start reads and runs. */
function startupChunks(): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(path.join(DIST, file), 'utf8');
    // `import ... from"./x.js"`, `export ... from"./x.js"`, `import"./x.js"`; never `import("./x.js")`.
    for (const [, target] of text.matchAll(/(?:\bfrom|\bimport)\s*["']\.\/([^"']+\.js)["']/g)) visit(target!);
  };
  visit('main.js');
  return [...seen];
}

/** The packages a chunk holds code of, from its source map. */
function packagesOf(file: string): Set<string> {
  const { sources } = JSON.parse(readFileSync(path.join(DIST, `${file}.map`), 'utf8')) as { sources: string[] };
  return new Set(sources.flatMap((source) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)?.[1] ?? []));
}

describe('the built server', () => {
  it('loads nodemailer and @simplewebauthn/server on first use, not at start (decision 390)', () => {
    const startup = startupChunks();
    assert.ok(startup.length > 1, 'main.js imports its chunks');
    for (const file of startup) {
      const packages = packagesOf(file);
      for (const lazy of ['nodemailer', '@simplewebauthn/server', '@peculiar/x509'])
        assert.equal(packages.has(lazy), false, `${file}, read at start, holds ${lazy}`);
    }
    const later = serverModules().filter((file) => !startup.includes(file));
    for (const lazy of ['nodemailer', '@simplewebauthn/server'])
      assert.ok(
        later.some((file) => packagesOf(file).has(lazy)),
        `a chunk loaded later holds ${lazy}`,
      );
  });

  it('loads ccxt on first use, not at start: no chunk read at start imports it (decisions 016, 700, 810)', () => {
    const startup = startupChunks();
    const importsCcxt = (file: string) =>
      /(?:\bfrom|\bimport)\s*["']ccxt["']/.test(readFileSync(path.join(DIST, file), 'utf8'));
    for (const file of startup) assert.equal(importsCcxt(file), false, `${file}, read at start, imports ccxt`);
    assert.ok(
      serverModules().some((file) => readFileSync(path.join(DIST, file), 'utf8').includes('import("ccxt")')),
      'a chunk imports ccxt when it is first needed',
    );
  });

  it('is ASCII only, so V8 keeps each module source at one byte per character', () => {
    const files = serverModules();
    assert.ok(files.length > 3, 'dist/ is built');
    for (const file of files) {
      const text = readFileSync(path.join(DIST, file), 'utf8');
      const at = text.search(/[\u0080-\uffff]/);
      assert.equal(at, -1, `${file} has a non-ASCII character: ${JSON.stringify(text.slice(at - 40, at + 10))}`);
    }
  });

  it('names src/ lines in stack traces of code in dist/, as run.mjs starts it', () => {
    const chunk = serverModules().find((file) =>
      readFileSync(path.join(DIST, file), 'utf8').includes('function loadConfig('),
    );
    assert.ok(chunk, 'a module of dist/ holds loadConfig');
    // A process of its own: the mapping replaces Error.prepareStackTrace for the whole process.
    const program = `
      import { mapStackTraces } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'scripts/stack-traces.mjs')).href)};
      mapStackTraces(${JSON.stringify(pathToFileURL(DIST + path.sep).href)});
      const { loadConfig } = await import(${JSON.stringify(pathToFileURL(path.join(DIST, chunk)).href)});
      try { loadConfig(null); } catch (error) { process.stdout.write(error.stack); }
      const plain = new Error('outside dist');
      process.stdout.write('\\n' + plain.stack);
    `;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    const [mapped, plain] = result.stdout.split('\nError: outside dist\n');
    assert.match(mapped!, /^TypeError: .*HOST/);
    assert.match(mapped!, new RegExp(`at .* \\(${path.join(ROOT, 'src/config/')}[\\w/-]+\\.ts:\\d+:\\d+\\)`));
    assert.doesNotMatch(mapped!, /dist\/chunk-/, 'every frame in dist/ is mapped');
    assert.match(plain!, /^ {4}at .*\[eval1\]:\d+:\d+/m, 'frames outside dist/ keep their position');
  });

  it("keeps V8's compiled code of dist/ beside it, and a later start reads it back (decision 1480)", () => {
    // The CLI's usage needs no database. The first start writes the cache (or finds it written by an
    // earlier start); the second must have V8 accept it for the entry point, not compile it again.
    const start = () =>
      spawnSync(process.execPath, ['scripts/run.mjs', 'cli', 'help'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
      });
    const first = start();
    assert.equal(first.status, 0, first.stderr);
    const second = start();
    assert.equal(second.status, 0, second.stderr);
    const entry = pathToFileURL(path.join(DIST, 'cli.js')).href;
    const cacheDir = path.join(DIST, '.compile-cache');
    assert.ok(
      second.stderr.includes(`[compile cache] reading cache from ${cacheDir}${path.sep}`),
      `the cache is read from dist/.compile-cache:\n${second.stderr.slice(0, 2_000)}`,
    );
    // Node 22 says "cache for <url> was accepted", Node 24 "V8 code cache for ESM <url> was accepted".
    assert.ok(
      second.stderr.includes(`cache for ${entry} was accepted`) ||
        second.stderr.includes(`cache for ESM ${entry} was accepted`),
      `V8 accepts the cached code of dist/cli.js:\n${second.stderr.slice(0, 2_000)}`,
    );
  });

  it("ends esbuild's service process once a build is done, so no 280 MiB process stays beside the server", () => {
    // A process of its own, which builds as run.mjs does when dist/ is stale, then watches the processes
    // it started: esbuild's service is told to end, and must be gone within five seconds.
    const program = `
      import { withEsbuild } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'scripts/build.mjs')).href)};
      import { eachTask } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'scripts/process-tree.mjs')).href)};
      const started = () => {
        const found = new Set();
        eachTask(process.pid, (pid) => pid === String(process.pid) || found.add(pid));
        return found.size;
      };
      let during = 0;
      await withEsbuild(async (build) => {
        await build({ stdin: { contents: 'export const one = 1;' }, write: false });
        during = started();
      });
      const deadline = Date.now() + 5000;
      while (started() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      process.stdout.write(JSON.stringify({ during, after: started() }));
    `;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    const { during, after } = JSON.parse(result.stdout) as { during: number; after: number };
    assert.equal(during, 1, 'the build ran in a service process');
    assert.equal(after, 0, "esbuild's service process is gone");
  });
});
