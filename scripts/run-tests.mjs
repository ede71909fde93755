#!/usr/bin/env node
// Runs every test file (or those under the paths given), TypeScript through tsx and the network guard
// loaded first: most files one after another in a few shared processes (test/helpers/file-worker.mjs),
// the files that act on their process (start processes, move its clock...) each in a process of its
// own (decision 350). Before the files run, one migrated database is prepared for the whole run
// (test/helpers/database-template.ts); every process then starts from a copy of it instead of
// migrating its own. Each file's output is printed whole when it ends; the slowest files and the
// totals close the run.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, freemem, tmpdir } from 'node:os';
import path from 'node:path';
import { runnableClock } from './ready-wait.mjs';
import { ensureBuilt } from './build.mjs';
import { descendantsWatch, idleCores, unwaitedSeconds } from './machine-cpu.mjs';
import { planLanes } from './test-lanes.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const targets = process.argv.slice(2);

function collect(entry, files) {
  const stat = statSync(entry);
  if (stat.isDirectory()) {
    for (const name of readdirSync(entry).sort()) {
      if (name === 'node_modules' || name === 'fakes' || name === 'helpers') continue;
      collect(path.join(entry, name), files);
    }
  } else if (entry.endsWith('.test.ts')) {
    files.push(entry);
  }
  return files;
}

const files = (targets.length > 0 ? targets : ['test', 'src'])
  .map((t) => path.resolve(root, t))
  .flatMap((t) => collect(t, []));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

const tsx = ['--import', 'tsx'];
const env = { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' };
// Each file's process reports its CPU time here when it exits (test/helpers/usage.mjs).
const usageDir = mkdtempSync(path.join(tmpdir(), 'tp-usage-'));
env.TEST_USAGE_DIR = usageDir;
// Each file's PostgreSQL database is named here when made, and dropped with the template when the run ends
// (test/helpers/test-postgres.ts, decision 1210).
env.TEST_DATABASES_DIR = mkdtempSync(path.join(tmpdir(), 'tp-databases-'));

// The built server and CLI, which the process tests run as `npm start` does, built once up front.
await ensureBuilt();

// The template: the PGlite image to copy, or a PostgreSQL database to copy, named in the environment.
const template = spawnSync(process.execPath, [...tsx, path.join(root, 'test/helpers/database-template.ts'), 'create'], {
  cwd: root,
  env,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
if (template.status !== 0) {
  console.error('could not prepare the test database template');
  process.exit(1);
}
const made = JSON.parse(template.stdout);
Object.assign(env, made);

// A file spends much of its time waiting (on its fakes, on processes it starts, on timeouts it
// tests), so as many files as cores leave cores idle: one more file than cores keeps them busy.
// A file takes up to ~700 MB (its PGlite), which bounds the count on a small machine.
const cores = availableParallelism();
const concurrency = Number(
  process.env.TEST_CONCURRENCY ?? Math.max(1, Math.min(cores + 1, Math.floor(freemem() / 800e6))),
);
// A file that hangs (a deadlock, a promise never settled) fails after this long instead of stalling
// the run; the slowest file takes well under a minute. The time counted is the time the file's
// processes could have run, not the time they waited for a core other work held (decision 480).
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 180_000);

/**
 * Calls `onTimeout` with the reason once the process `pid` and those under it have had
 * TEST_FILE_TIMEOUT_MS of time they could have run (runnableClock): a file that hangs is ended after
 * that much wall time, as before; one starved of cores by other work on the machine is not ended
 * for the time it waited. Meanwhile reads the CPU time of the processes under `pid` (decision 660).
 * Returns what stops the watch: `stop()` takes a last reading and gives the CPU seconds those
 * processes were seen to run (`seen`) and the seconds they could have run (`runnable`: the wall time
 * less what they waited for a core, which the next run's order reads, decision 1240).
 */
function watchFile(pid, onTimeout) {
  const clock = runnableClock(pid);
  const descendants = descendantsWatch(pid);
  const timer = setInterval(
    () => {
      descendants.tick();
      const { chargedMs, wallMs, waitedMs, ranMs } = clock.tick();
      if (chargedMs < fileTimeoutMs) return;
      clearInterval(timer);
      onTimeout(
        `timed out after ${fileTimeoutMs / 1000} s (TEST_FILE_TIMEOUT_MS) of time it could have run: ` +
          `${(wallMs / 1000).toFixed(1)} s of wall time, ${(waitedMs / 1000).toFixed(1)} s of it waiting for a core, ` +
          `${(ranMs / 1000).toFixed(1)} s of CPU time`,
      );
    },
    Math.min(1000, fileTimeoutMs / 10),
  );
  return () => {
    clearInterval(timer);
    descendants.tick();
    return { seen: descendants.seconds(), runnable: clock.tick().chargedMs / 1000 };
  };
}
const started = performance.now();

const idle = idleCores();
const results = [];
const totals = { tests: 0, pass: 0, fail: 0, skipped: 0, cancelled: 0, todo: 0 };
/** Why tests were skipped (a service or browser missing), and how many for each reason. */
const skipReasons = new Map();

/**
 * Why a file failed, in a few lines for the run's closing summary (a CI log keeps its tail): how the
 * process ended, then its first failure and what follows it, or its last lines when nothing is marked.
 */
function whyFailed(output, ending) {
  const lines = output.trimEnd().split('\n');
  const first = lines.findIndex((line) => /^\s*✖/.test(line));
  const shown = first >= 0 ? lines.slice(first, first + 40) : lines.slice(-40);
  return [`ended: ${ending}`, ...shown].map((line) => `#       ${line}`).join('\n');
}

/** What a file's process reported of its CPU time (its own and its children's), in seconds. */
function usageOf(pid) {
  try {
    const { cpu, children, maxRssMiB } = JSON.parse(readFileSync(path.join(usageDir, `${pid}.json`), 'utf8'));
    return { cpu: cpu + children, children, maxRssMiB };
  } catch {
    // Killed before it could say (the file timeout): its CPU time is unknown.
    return { cpu: 0, children: 0, maxRssMiB: 0 };
  }
}

/**
 * A file's figures with what the processes under its process ran unwaited for (a browser's
 * renderers) added: `unwaited` apart, and in `cpu`, which ranks and orders the files.
 */
function charged(usage, seen) {
  const unwaited = unwaitedSeconds(seen, usage.children);
  return { ...usage, cpu: usage.cpu + unwaited, unwaited };
}

const nodeFlags = [
  // PGlite's WebAssembly compiled once, quickly, as `npm start` runs it (decision 016): the
  // optimising tier recompiled its hot functions in every file's process, ~1 s of CPU a file
  // more than the faster code saved (decision 300).
  '--liftoff-only',
  ...tsx,
  '--import',
  path.join(root, 'test/helpers/usage.mjs'),
  '--import',
  path.join(root, 'test/helpers/no-network.mjs'),
];

/** Prints a file's report and keeps its figures for the closing summary. */
function report({ name, seconds, runnable, usage, ok, ending, output, shared }) {
  for (const [, key, value] of output.matchAll(/^ℹ (tests|pass|fail|skipped|cancelled|todo) (\d+)$/gm))
    totals[key] += Number(value);
  for (const [, reason] of output.matchAll(/^\s*﹣ .* # (.+)$/gm))
    skipReasons.set(reason, (skipReasons.get(reason) ?? 0) + 1);
  process.stdout.write(
    `\n# ${name} (${seconds.toFixed(1)} s, ${usage.cpu.toFixed(1)} s CPU` +
      `${usage.unwaited >= 0.05 ? `, ${usage.unwaited.toFixed(1)} of it unwaited for` : ''}` +
      `${shared ? ', shared process' : ''})` +
      `${ok ? '' : ` FAILED (${ending})`}\n${output}`,
  );
  results.push({ name, seconds, runnable, ...usage, ok, why: ok ? '' : whyFailed(output, ending) });
}

function runFile(file) {
  return new Promise((resolve) => {
    const began = performance.now();
    const child = spawn(process.execPath, [...nodeFlags, '--test-reporter=spec', file], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks = [];
    let timedOut;
    const stopWatch = watchFile(child.pid, (why) => {
      timedOut = why;
      chunks.push(Buffer.from(`\n# ${why}\n`));
      child.kill('SIGKILL');
    });
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('close', (code, signal) => {
      const { seen, runnable } = stopWatch();
      const output = Buffer.concat(chunks).toString('utf8');
      // Node exits 0 when only a suite's hook failed (an `after` that threw): its summary still lists it.
      const ok = code === 0 && !/^✖ failing tests:$/m.test(output);
      report({
        name: path.relative(root, file),
        seconds: (performance.now() - began) / 1000,
        runnable,
        usage: charged(usageOf(child.pid), seen),
        ok,
        ending: timedOut ?? signal ?? (code === 0 ? 'exit 0, but a hook failed' : `exit ${code}`),
        output,
      });
      resolve();
    });
  });
}

/**
 * Why a file needs a process of its own, or undefined when it can share one with other files
 * (test/helpers/file-worker.mjs). Read from the file and from the fixtures next to it that it imports
 * (the shared helpers are known not to): what a file does to its process would reach the files run
 * after it in a shared one, and a process it starts or kills is measured only in a process of its own.
 * A browser driven by playwright-core is the exception (decision 370): the file closes it in its
 * `after`, so it is waited for and counted in the file's CPU time (its renderers, which it does not
 * wait for, are read from /proc meanwhile: decision 660), and file-worker.mjs fails a file
 * that leaves a process running.
 */
const OWN_PROCESS = [
  [/node:child_process|helpers\/processes\.ts/, 'starts processes'],
  [/\bmock\.timers\b/, "moves the process's clock"],
  [/\bprocess\.(on|once|kill|exit|chdir|umask)\(/, 'acts on its process'],
  [/\bprocess\.(memoryUsage|resourceUsage|cpuUsage)\b|monitorEventLoopDelay/, 'measures its process'],
  [/\bprocess\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env/, "changes its process's environment"],
  [/\btestDatabase\(\)[\s\S]*\.close\(\)/, "closes its process's database itself"],
  [/^\/\/ test-runner: own process\b/m, 'says so'],
];
function ownProcessReason(file, seen = new Set()) {
  if (seen.has(file)) return undefined;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  for (const [pattern, reason] of OWN_PROCESS) if (pattern.test(source)) return reason;
  for (const [, relative] of source.matchAll(/from '(\.{1,2}\/[^']+\.ts)'/g)) {
    const imported = path.resolve(path.dirname(file), relative);
    if (imported.startsWith(path.join(root, 'test', 'helpers') + path.sep)) continue;
    if (!imported.startsWith(path.join(root, 'test') + path.sep) || !existsSync(imported)) continue;
    const reason = ownProcessReason(imported, seen);
    if (reason) return reason;
  }
  return undefined;
}

/** The shared processes' CPU time spent outside any file (starting, closing), in seconds. */
const sharedOverhead = { cpu: 0, processes: 0 };

/**
 * A process that runs files one after another (test/helpers/file-worker.mjs), each reported as if
 * it had run alone. A file that crashes it or outlasts the file timeout fails by name; the process
 * is then ended and the next file goes to a new one.
 */
function startSharedProcess() {
  const child = spawn(
    process.execPath,
    [
      ...nodeFlags,
      `--test-reporter=${path.join(root, 'test/helpers/file-worker-reporter.mjs')}`,
      '--test-reporter-destination=stdout',
      path.join(root, 'test/helpers/file-worker.mjs'),
    ],
    { cwd: root, env: { ...env, TEST_SHARED_PROCESS: '1' }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
  );
  // What the process writes itself (a test's console output, a warning), shown with the file then running.
  const stray = [];
  child.stdout.on('data', (chunk) => stray.push(chunk));
  child.stderr.on('data', (chunk) => stray.push(chunk));
  const takeStray = () => Buffer.concat(stray.splice(0)).toString('utf8');
  let filesCpu = 0;
  let lastFile = '(none)';
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve(signal ?? `exit ${code}`)));
  const ready = new Promise((resolve) => child.once('message', resolve));
  return {
    /** Runs one file; false when the process is gone after it (crashed, or ended for hanging). */
    async run(file) {
      const name = path.relative(root, file);
      lastFile = name;
      const began = performance.now();
      await Promise.race([ready, exited]);
      // From here the file's time runs; the process's start is not the file's.
      let timedOut;
      const stopWatch = watchFile(child.pid, (why) => {
        timedOut = why;
        child.kill('SIGKILL');
      });
      const done = new Promise((resolve) =>
        child.on('message', function onMessage(message) {
          if (message.fileDone !== name) return;
          child.off('message', onMessage);
          resolve(message);
        }),
      );
      if (child.connected) child.send({ file, name });
      const outcome = await Promise.race([done, exited]);
      const { seen, runnable } = stopWatch();
      const seconds = (performance.now() - began) / 1000;
      if (typeof outcome === 'object') {
        filesCpu += outcome.cpu;
        report({
          name,
          seconds,
          runnable,
          usage: charged({ cpu: outcome.cpu, children: outcome.children, maxRssMiB: 0 }, seen),
          ok: outcome.ok && !/^✖ failing tests:$/m.test(outcome.output),
          ending: 'its tests failed',
          output: takeStray() + outcome.output,
          shared: true,
        });
        return true;
      }
      const ending = timedOut ?? outcome;
      report({
        name,
        seconds,
        usage: { cpu: 0, children: 0, maxRssMiB: 0 },
        ok: false,
        ending: `its shared process ended: ${ending}`,
        output: `${takeStray()}\n# its shared process ended: ${ending}\n`,
        shared: true,
      });
      await this.close();
      return false;
    },
    /** Lets the process end (its database closes); what went wrong then fails under its last file's name. */
    async close() {
      if (child.connected) child.send({ done: true });
      const ending = await exited;
      const usage = usageOf(child.pid);
      sharedOverhead.cpu += Math.max(0, usage.cpu - filesCpu);
      sharedOverhead.processes += 1;
      const output = takeStray();
      if (/^\s*✖/m.test(output))
        report({
          name: `(a shared process, after ${lastFile})`,
          seconds: 0,
          usage: { cpu: 0, children: 0, maxRssMiB: usage.maxRssMiB },
          ok: false,
          ending,
          output,
          shared: true,
        });
    },
  };
}

// Longest first, by the CPU time each file took in the last run here, so the run does not end
// waiting on one long file started last; files not seen before go first, as they may be long.
// A file not run here yet (all of them in a fresh clone) goes by the CPU time and the time it could
// have run committed in test/file-cpu-seconds.json and test/file-runnable-seconds.json
// (`UPDATE_TEST_ORDER=1 npm test` rewrites them from a whole run): in name order, a clean run ended on
// its longest files (decision 305).
const cache = path.join(root, 'node_modules/.cache/trading-platform');
const timesCache = path.join(cache, 'test-times.json');
const runnableCache = path.join(cache, 'test-runnable.json');
const committedTimes = path.join(root, 'test/file-cpu-seconds.json');
const committedRunnable = path.join(root, 'test/file-runnable-seconds.json');
const readTimes = (file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
};
const lastTimes = { ...readTimes(committedTimes), ...readTimes(timesCache) };
const lastRunnable = { ...readTimes(committedRunnable), ...readTimes(runnableCache) };
// The files that mostly wait run in a lane of their own beside the others (decision 1240), unless the
// count at a time is set (TEST_CONCURRENCY=1 measures files alone), TEST_WAITING_LANE=0, or the memory
// free would not hold one more file.
const { queue, waiting } = planLanes(
  files,
  (file) => lastTimes[path.relative(root, file)],
  (file) => lastRunnable[path.relative(root, file)],
  process.env.TEST_CONCURRENCY === undefined &&
    process.env.TEST_WAITING_LANE !== '0' &&
    freemem() / 800e6 >= concurrency + 1,
);
const waitingFiles = waiting.length;
// TEST_SHARED_PROCESSES=0 runs every file in a process of its own, as the run did before (decision 350).
const sharing = process.env.TEST_SHARED_PROCESSES !== '0';

/** Runs the files `next` gives, one after another, those that can in one shared process. */
async function lane(next) {
  let shared;
  for (let file = next(); file; file = next()) {
    if (!sharing || ownProcessReason(file)) {
      await runFile(file);
      continue;
    }
    shared ??= startSharedProcess();
    if (!(await shared.run(file))) shared = undefined;
  }
  await shared?.close();
}
await Promise.all([
  // Once the queue is done, these lanes take the waiting lane's files too, so none is left to it alone.
  ...Array.from({ length: Math.min(concurrency, files.length) }, () => lane(() => queue.shift() ?? waiting.shift())),
  ...(waitingFiles > 0 ? [lane(() => waiting.shift())] : []),
]);

const idleFigures = idle?.stop();

// PostgreSQL's template and files' databases are dropped through a client; PGlite's are files of the run.
if (env.DATABASE_URL) {
  spawnSync(process.execPath, [...tsx, path.join(root, 'test/helpers/database-template.ts'), 'drop'], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
}
rmSync(env.TEST_DATABASES_DIR, { recursive: true, force: true });
if (made.TEST_PGLITE_IMAGE) rmSync(path.dirname(made.TEST_PGLITE_IMAGE), { recursive: true, force: true });

rmSync(usageDir, { recursive: true, force: true });

const failed = results.filter((r) => !r.ok);
// Ranked by CPU time, which a busy machine hardly changes; wall time beside it.
const slowest = [...results].sort((a, b) => b.cpu - a.cpu).slice(0, 10);
const cpuTotal = results.reduce((sum, r) => sum + r.cpu, 0) + sharedOverhead.cpu;
const unwaitedTotal = results.reduce((sum, r) => sum + (r.unwaited ?? 0), 0);
console.log(
  `\n# slowest files (CPU s, wall s)\n${slowest
    .map((r) => `#   ${r.cpu.toFixed(1).padStart(5)}  ${r.seconds.toFixed(1).padStart(5)}  ${r.name}`)
    .join('\n')}`,
);
if (sharedOverhead.processes > 0)
  console.log(
    `# ${sharedOverhead.cpu.toFixed(0)} CPU s in ${sharedOverhead.processes} shared processes outside their ` +
      'files (starting, closing), counted in the total below',
  );
console.log(
  `# ${cpuTotal.toFixed(0)} CPU s in the files and processes; at least ${(cpuTotal / availableParallelism()).toFixed(0)} s ` +
    `on ${availableParallelism()} idle cores`,
);
if (idleFigures)
  console.log(
    `# while the files ran, the machine's cores were busy ${idleFigures.busy.toFixed(0)} s (the files' figures count ` +
      `${cpuTotal.toFixed(0)}, ${unwaitedTotal.toFixed(0)} of it in processes they did not wait for) and idle ${idleFigures.idle.toFixed(0)} s ` +
      `(${idleFigures.percent}%); idle by tenth of the run: ${idleFigures.tenths.map((p) => `${p}%`).join(' ')}`,
  );
try {
  // Files outside the checkout (a test's own fixtures, written to a temporary directory) are not kept.
  for (const r of results)
    if (r.cpu > 0 && !r.name.startsWith('..')) {
      lastTimes[r.name] = Number(r.cpu.toFixed(2));
      if (r.runnable !== undefined) lastRunnable[r.name] = Number(r.runnable.toFixed(2));
    }
  mkdirSync(cache, { recursive: true });
  writeFileSync(timesCache, `${JSON.stringify(lastTimes, null, 1)}\n`);
  writeFileSync(runnableCache, `${JSON.stringify(lastRunnable, null, 1)}\n`);
} catch {
  // Only the order of the next run depends on it.
}
if (process.env.UPDATE_TEST_ORDER && targets.length === 0 && failed.length === 0) {
  // Whole seconds, in name order: the order matters, not the decimals, and the diff stays small.
  const byName = (figure) =>
    Object.fromEntries(
      results
        .filter((r) => r.cpu > 0)
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((r) => [r.name, Math.max(1, Math.round(figure(r)))]),
    );
  const write = (file, figure) => writeFileSync(file, `${JSON.stringify(byName(figure), null, 2)}\n`);
  write(committedTimes, (r) => r.cpu);
  write(committedRunnable, (r) => r.runnable ?? r.seconds);
}
if (process.env.TEST_TIMES_FILE) {
  const times = results.map(({ name, seconds, runnable, cpu, children, unwaited, maxRssMiB, ok }) => ({
    name,
    wall: Number(seconds.toFixed(2)),
    runnable: Number((runnable ?? seconds).toFixed(2)),
    cpu: Number(cpu.toFixed(2)),
    children: Number(children.toFixed(2)),
    unwaited: Number((unwaited ?? 0).toFixed(2)),
    maxRssMiB,
    ok,
  }));
  writeFileSync(process.env.TEST_TIMES_FILE, `${JSON.stringify(times, null, 1)}\n`);
}
console.log(
  `\n# ${files.length} files, ${totals.tests} tests: ${totals.pass} passed, ${totals.fail} ` +
    `failed, ${totals.skipped} skipped, ${totals.cancelled} cancelled, ${totals.todo} ` +
    `todo; ${((performance.now() - started) / 1000).toFixed(1)} s with ${concurrency} at a time` +
    `${waitingFiles > 0 ? ` and ${waitingFiles} files that mostly wait in a lane of their own beside them` : ''}`,
);
if (skipReasons.size > 0) {
  console.log(
    '# skipped, and ' +
      `why:\n${[...skipReasons].map(([reason, n]) => `#   ${String(n).padStart(4)}  ${reason}`).join('\n')}`,
  );
}
if (failed.length > 0) console.log(`# failed files:\n${failed.map((r) => `#   ${r.name}\n${r.why}`).join('\n')}`);
process.exit(failed.length > 0 || totals.fail > 0 || totals.cancelled > 0 ? 1 : 0);
