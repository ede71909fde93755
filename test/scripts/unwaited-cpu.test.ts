// The test runner charges a file the CPU time of the processes under its process that it never waits
// for (decision 660): a browser's renderers, which the file's figures of its own process miss. Shown on
// a real run of the runner, on a file written here that leaves a process to the system; the arithmetic
// on readings chosen here (a process that ends between readings, a pid used again).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { descendantsWatch, unwaitedSeconds } from '../../scripts/machine-cpu.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BURN_S = 1.5;

/**
 * How long the runner must have been free to run for one of its readings of the processes under a file
 * (one a second) to have come: a reading due while the runner waits for a core comes late, so this
 * is counted in the time the runner's main thread did not wait for one (Linux's schedstat), not in wall
 * time, which a loaded machine fills with waiting (decision 480's clock, for one thread).
 */
const RUNNER_FREE_MS = 2_500;

// `sh` starts a process that burns BURN_S of CPU, then becomes `sleep`, which never waits for it: when
// the sleep is ended, the burner goes to the system, and its time to no process of the file's. The
// burner, ended but not reaped (the sleep never waits), still says what it ran until the sleep ends: the
// file keeps it so until the runner has been free to run for RUNNER_FREE_MS since, however long that takes.
const leavesOne = `import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
/** The runner's main thread: how long it ran and waited for a core, in ms (Linux's schedstat). */
function runnerSched() {
  const [ran, waited] = readFileSync(\`/proc/\${process.ppid}/schedstat\`, 'latin1').split(' ').map(Number);
  return { ran: ran / 1e6, waited: waited / 1e6, at: performance.now() };
}
it('leaves a process it never waits for', async () => {
  const burn = 'const s = process.cpuUsage(); while (process.cpuUsage(s).user < ${BURN_S * 1e6}); console.log("burnt")';
  const child = spawn('sh', ['-c', \`"\${process.execPath}" -e '\${burn}' & exec sleep 600\`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve) => child.stdout.on('data', (chunk) => String(chunk).includes('burnt') && resolve()));
  const from = runnerSched();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = runnerSched();
    if (now.at - from.at - (now.waited - from.waited) >= ${RUNNER_FREE_MS}) break;
  }
  child.kill();
  await once(child, 'close');
});
`;

describe('the test runner charges a file what the processes under it ran unwaited for', {
  skip: existsSync('/proc/self/task') ? undefined : 'needs Linux, whose /proc lists a process tree',
}, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tp-unwaited-'));
  let output = '';
  before(async () => {
    writeFileSync(path.join(dir, 'leaves-one.test.ts'), leavesOne);
    const runner = spawn(process.execPath, ['scripts/run-tests.mjs', path.join(dir, 'leaves-one.test.ts')], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    runner.stdout.on('data', (chunk) => (output += chunk));
    runner.stderr.on('data', (chunk) => (output += chunk));
    await new Promise((resolve) => runner.on('close', resolve));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('counts in the file a process its process never waited for', () => {
    const [, cpu, unwaited] =
      /^# \S*leaves-one\.test\.ts \([\d.]+ s, ([\d.]+) s CPU, ([\d.]+) of it unwaited for\)$/m.exec(output) ?? [];
    assert.ok(unwaited, output);
    assert.ok(Number(unwaited) >= BURN_S * 0.9, `charged ${unwaited} s unwaited for\n${output}`);
    assert.ok(Number(cpu) >= Number(unwaited) + 0.1, `${cpu} s CPU in all`);
  });
});

describe("the arithmetic of what a file's processes ran unwaited for", () => {
  /** A watch over readings given one at a time: `read(processes)` sets what the next reading sees. */
  function scripted(first: Record<string, number>) {
    let processes = new Map(Object.entries(first));
    const watch = descendantsWatch(1, { read: () => processes });
    return {
      watch,
      read(next: Record<string, number>) {
        processes = new Map(Object.entries(next));
        watch.tick();
      },
    };
  }

  it('counts what each process ran since the first reading, as last seen, one that ended too', () => {
    const { watch, read } = scripted({ '10:1': 5, '11:1': 1 });
    read({ '10:1': 7, '12:3': 3 });
    read({ '10:1': 8, '12:3': 4 });
    // 10 ran 3 since the first reading; 11 nothing, then ended; 12 began and ended after running 4.
    read({});
    assert.equal(watch.seconds(), 7);
  });

  it('takes a pid used again for another process', () => {
    const { watch, read } = scripted({ '10:1': 5 });
    read({ '10:9': 2 });
    assert.equal(watch.seconds(), 2);
  });

  it('adds only what the waited-for children, already counted, do not hold', () => {
    assert.equal(unwaitedSeconds(7, 5), 2);
    // A short child waited for and missed between readings: nothing is taken off.
    assert.equal(unwaitedSeconds(3, 5), 0);
  });
});
