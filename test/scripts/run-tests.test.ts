// The test runner's file timeout counts the time a file could have run (decision 480): a file that
// hangs, waiting on an event that never comes, is ended after TEST_FILE_TIMEOUT_MS as before; a file
// starved of its core by other work is not ended for the time it waited, though its wall time passes
// the bound. Both in a process of the file's own and in a shared one. The runner runs for real, on
// files written here: the starved files and the runner are held to one core, where busy loops at the
// lowest priority (`nice -n 19`, as the starved file's own thread) are started for as long as a starved
// file burns its CPU, so that it gets a fixed share of that core however idle the machine.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BOUND_S = 6;
/**
 * The CPU time a starved file burns: with seven loops beside it on its core, over 7 s of wall time. The
 * bound leaves room for what a file's process costs to start (~1.5 s of CPU, more on a busy machine).
 */
const BURN_MS = 900;
const HOGS = 7;

/** The first core this process may run on, from Linux's /proc; undefined elsewhere. */
function firstCore(): number | undefined {
  try {
    const allowed = /^Cpus_allowed_list:\s*(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return allowed ? Number(allowed[1]) : undefined;
  } catch {
    return undefined;
  }
}
const CORE = firstCore();
const CANNOT =
  CORE === undefined || !existsSync('/proc/thread-self/schedstat')
    ? 'needs Linux, whose schedstat tells the time waited for a core'
    : spawnSync('taskset', ['-c', String(CORE), 'true']).status !== 0
      ? 'needs taskset (util-linux) to hold processes to one core'
      : undefined;

const hangs = `import { it } from 'node:test';
it('waits on an event that never comes', async () => {
  await new Promise((resolve) => setTimeout(resolve, 2 ** 31 - 1));
});
`;
/**
 * A file that burns BURN_MS of its thread's CPU time at the lowest priority, on a core the loops share,
 * then tells the test (which ends the loops once every starved file has) and how long it took.
 */
const starved = (signals: string, name: string) => `import { readFileSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { it } from 'node:test';
const loaded = performance.now();
const threadCpuMs = () => Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6;
it('passes after ${BURN_MS} ms of CPU time, starved of its core', () => {
  setPriority(19);
  const start = threadCpuMs();
  while (threadCpuMs() - start < ${BURN_MS}) for (let i = 0; i < 100_000; i += 1);
  writeFileSync(${JSON.stringify(path.join(signals, `${name}.done`))}, '');
  console.log(\`${name}: \${Math.round(performance.now() - loaded)} ms of wall time since it was loaded\`);
});
`;

interface FileReport {
  seconds: number;
  failed?: string;
}

describe('the test runner ends a file that hangs, not one starved of cores', { skip: CANNOT }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tp-runner-'));
  const signals = path.join(dir, 'signals');
  const hogs: ChildProcess[] = [];
  const reports = new Map<string, FileReport>();
  let output = '';

  /**
   * Starts the loops, on the core the runner is held to, for as long as a starved file may run: from
   * before the runner starts (a loop started on a file's signal would leave it idle, and its bound
   * running, until the loops were up) until every starved file is done or the runner ends.
   */
  function startHogs(starvedFiles: number) {
    for (let i = 0; i < HOGS; i += 1)
      hogs.push(
        spawn('taskset', ['-c', String(CORE), 'nice', '-n', '19', 'sh', '-c', 'while :; do :; done'], {
          stdio: 'ignore',
        }),
      );
    const stop = () => {
      watcher.close();
      for (const hog of hogs.splice(0)) hog.kill('SIGKILL');
    };
    // A file written may be told of twice (created, then changed).
    const done = new Set<string>();
    const watcher = watch(signals, (_event, file) => {
      if (String(file).endsWith('.done')) done.add(String(file));
      if (done.size === starvedFiles) stop();
    });
    return stop;
  }

  before(async () => {
    mkdirSync(signals);
    const files = {
      'starved-alone.test.ts': `// test-runner: own process\n${starved(signals, 'starved-alone')}`,
      'starved-shared.test.ts': starved(signals, 'starved-shared'),
      'hangs-shared.test.ts': hangs,
      'hangs-alone.test.ts': `// test-runner: own process\n${hangs}`,
    };
    for (const [name, source] of Object.entries(files)) writeFileSync(path.join(dir, name), source);
    const stopHogs = startHogs(2);
    try {
      // One file at a time, in the order given (files the runner has no times for keep it), all on one core.
      const runner = spawn(
        'taskset',
        [
          '-c',
          String(CORE),
          process.execPath,
          'scripts/run-tests.mjs',
          ...Object.keys(files).map((f) => path.join(dir, f)),
        ],
        {
          cwd: ROOT,
          env: { ...process.env, TEST_FILE_TIMEOUT_MS: String(BOUND_S * 1000), TEST_CONCURRENCY: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      runner.stdout.on('data', (chunk) => (output += chunk));
      runner.stderr.on('data', (chunk) => (output += chunk));
      await new Promise((resolve) => runner.on('close', resolve));
    } finally {
      stopHogs();
    }
    for (const [, name, seconds, failed] of output.matchAll(
      /^# \S*\/([\w-]+\.test\.ts) \(([\d.]+) s, [\d.]+ s CPU(?:, shared process)?\)(?: FAILED \((.*)\))?$/gm,
    ))
      reports.set(name, { seconds: Number(seconds), failed });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const where of ['alone', 'shared']) {
    it(`ends a file that hangs after ${BOUND_S} s, in a process ${where === 'alone' ? 'of its own' : 'shared with others'}`, () => {
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

    it(`lets a file starved of its core pass beyond ${BOUND_S} s of wall time, in a process ${where === 'alone' ? 'of its own' : 'shared with others'}`, () => {
      const report = reports.get(`starved-${where}.test.ts`);
      assert.ok(report, output);
      assert.equal(report.failed, undefined, output);
      // Else the file was not starved, and wall time alone would not have ended it either.
      const wallMs = Number(new RegExp(`^starved-${where}: (\\d+) ms of wall time`, 'm').exec(output)?.[1]);
      assert.ok(wallMs > BOUND_S * 1000, `took ${wallMs} ms, so was hardly starved\n${output}`);
    });
  }
});
