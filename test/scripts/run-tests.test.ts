// The test runner's file timeout counts the time a file could have run (decision 480): a file that
// hangs, waiting on an event that never comes, is ended after TEST_FILE_TIMEOUT_MS as before, in a
// process of its own and in a shared one. The runner runs for real, on files written here. That a
// starved file is not charged the time it waited for a core is held by runnable-clock.test.ts on
// chosen readings: starving a real file on demand proved unreliable while other work shared the machine.
// The same run shows where its files' database comes from: a run's own copy of the cached PGlite tar,
// removed when the run ends, or PostgreSQL's template database.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pgliteImageDir } from '../../src/platform/db/pglite-image.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BOUND_S = 6;
const CANNOT = existsSync('/proc/thread-self/schedstat')
  ? undefined
  : 'needs Linux, whose schedstat tells the time waited for a core';

const hangs = `import { it } from 'node:test';
it('waits on an event that never comes', async () => {
  await new Promise((resolve) => setTimeout(resolve, 2 ** 31 - 1));
});
`;

/** A file that writes down where its database came from, and the size of the tar it was given. */
const namesItsDatabase = (out: string) => `import { statSync, writeFileSync } from 'node:fs';
import { it } from 'node:test';
it('names its database', () => {
  const image = process.env.TEST_PGLITE_IMAGE;
  writeFileSync(${JSON.stringify(out)}, JSON.stringify({
    image,
    size: image ? statSync(image).size : undefined,
    template: process.env.TEST_DATABASE_TEMPLATE,
  }));
});
`;

interface FileReport {
  seconds: number;
  failed?: string;
}

describe('the test runner ends a file that hangs', { skip: CANNOT }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tp-runner-'));
  const reports = new Map<string, FileReport>();
  let output = '';

  before(async () => {
    const files = {
      'hangs-shared.test.ts': hangs,
      'hangs-alone.test.ts': `// test-runner: own process\n${hangs}`,
      'names-its-database.test.ts': namesItsDatabase(path.join(dir, 'database.json')),
    };
    for (const [name, source] of Object.entries(files)) writeFileSync(path.join(dir, name), source);
    const runner = spawn(
      process.execPath,
      ['scripts/run-tests.mjs', ...Object.keys(files).map((f) => path.join(dir, f))],
      {
        cwd: ROOT,
        env: { ...process.env, TEST_FILE_TIMEOUT_MS: String(BOUND_S * 1000), TEST_CONCURRENCY: '2' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    runner.stdout.on('data', (chunk) => (output += chunk));
    runner.stderr.on('data', (chunk) => (output += chunk));
    await new Promise((resolve) => runner.on('close', resolve));
    for (const [, name, seconds, failed] of output.matchAll(
      /^# \S*\/([\w-]+\.test\.ts) \(([\d.]+) s, [\d.]+ s CPU(?:, [\d.]+ of it unwaited for)?(?:, shared process)?\)(?: FAILED \((.*)\))?$/gm,
    ))
      reports.set(name, { seconds: Number(seconds), failed });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("gives its files a copy of the cached PGlite tar, gone when it ends, or PostgreSQL's template", () => {
    assert.ok(existsSync(path.join(dir, 'database.json')), output);
    const seen = JSON.parse(readFileSync(path.join(dir, 'database.json'), 'utf8'));
    if (process.env.DATABASE_URL) {
      assert.match(seen.template ?? '', /^test_template_\d+$/);
      assert.equal(seen.image, undefined);
      return;
    }
    const cached = `${pgliteImageDir()}.tar`;
    assert.ok(path.dirname(seen.image).startsWith(path.join(tmpdir(), 'tp-run-image-')), seen.image);
    assert.equal(seen.size, statSync(cached).size, 'the same cluster as the cache holds');
    assert.ok(!existsSync(path.dirname(seen.image)), 'the run removes its copy');
  });

  for (const where of ['alone', 'shared']) {
    it(`after ${BOUND_S} s of time it could have run, in a process ${where === 'alone' ? 'of its own' : 'shared with others'}`, () => {
      const report = reports.get(`hangs-${where}.test.ts`);
      assert.ok(report, output);
      assert.match(report.failed ?? '', new RegExp(`timed out after ${BOUND_S} s \\(TEST_FILE_TIMEOUT_MS\\)`), output);
      assert.ok(report.seconds >= BOUND_S, `ended after ${report.seconds} s`);
      // Ended at about its bound of time it could have run: the wall time less what its process waited
      // for a core (starting, on a busy machine), which a file that hangs no longer does; the watch reads
      // every tenth of the bound, and the runner's own turn may come late on a busy machine.
      const [, wall, waited] = /([\d.]+) s of wall time, ([\d.]+) s of it waiting/.exec(report.failed ?? '') ?? [];
      assert.ok(Number(wall) - Number(waited) < BOUND_S * 1.5, `ended only after ${report.failed}\n${output}`);
    });
  }
});
