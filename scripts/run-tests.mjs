#!/usr/bin/env node
// Runs every test file (or those under the paths given), each in its own process, TypeScript through
// tsx and the network guard loaded first. Before the files run, one migrated database is prepared for
// the whole run (test/helpers/database-template.ts); every file then starts from a copy of it instead
// of migrating its own. Each file's output is printed whole when it ends; the slowest files and the
// totals close the run.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, freemem, tmpdir } from 'node:os';
import path from 'node:path';
import { ensureBuilt } from './build.mjs';

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
Object.assign(env, JSON.parse(template.stdout));

// A file spends much of its time waiting (on its fakes, on processes it starts, on timeouts it
// tests), so as many files as cores leave cores idle: one more file than cores keeps them busy.
// A file takes up to ~700 MB (its PGlite), which bounds the count on a small machine.
const cores = availableParallelism();
const concurrency = Number(
  process.env.TEST_CONCURRENCY ?? Math.max(1, Math.min(cores + 1, Math.floor(freemem() / 800e6))),
);
// A file that hangs (a deadlock, a promise never settled) fails after this long instead of stalling
// the run; the slowest file takes well under a minute.
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 180_000);
const started = performance.now();
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

function runFile(file) {
  return new Promise((resolve) => {
    const began = performance.now();
    const child = spawn(
      process.execPath,
      [
        // PGlite's WebAssembly compiled once, quickly, as `npm start` runs it (decision 016): the
        // optimising tier recompiled its hot functions in every file's process, ~1 s of CPU a file
        // more than the faster code saved (decision 300).
        '--liftoff-only',
        ...tsx,
        '--import',
        path.join(root, 'test/helpers/usage.mjs'),
        '--import',
        path.join(root, 'test/helpers/no-network.mjs'),
        '--test-reporter=spec',
        file,
      ],
      { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const chunks = [];
    const timer = setTimeout(() => {
      chunks.push(Buffer.from(`\n# timed out after ${fileTimeoutMs / 1000} s (TEST_FILE_TIMEOUT_MS)\n`));
      child.kill('SIGKILL');
    }, fileTimeoutMs);
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const output = Buffer.concat(chunks).toString('utf8');
      const seconds = (performance.now() - began) / 1000;
      for (const [, key, value] of output.matchAll(/^ℹ (tests|pass|fail|skipped|cancelled|todo) (\d+)$/gm))
        totals[key] += Number(value);
      for (const [, reason] of output.matchAll(/^\s*﹣ .* # (.+)$/gm))
        skipReasons.set(reason, (skipReasons.get(reason) ?? 0) + 1);
      // Node exits 0 when only a suite's hook failed (an `after` that threw): its summary still lists it.
      const ok = code === 0 && !/^✖ failing tests:$/m.test(output);
      const name = path.relative(root, file);
      const usage = usageOf(child.pid);
      process.stdout.write(
        `\n# ${name} (${seconds.toFixed(1)} s, ${usage.cpu.toFixed(1)} s CPU)${ok ? '' : ` FAILED (${signal ?? `exit ${code}`})`}\n${output}`,
      );
      results.push({
        name,
        seconds,
        ...usage,
        ok,
        why: ok ? '' : whyFailed(output, signal ?? (code === 0 ? 'exit 0, but a hook failed' : `exit ${code}`)),
      });
      resolve();
    });
  });
}

// Longest first, by the CPU time each file took in the last run here, so the run does not end
// waiting on one long file started last; files not seen before go first, as they may be long.
// A file not run here yet (all of them in a fresh clone) goes by the CPU time committed in
// test/file-cpu-seconds.json (`UPDATE_TEST_ORDER=1 npm test` rewrites it from a whole run): in
// name order, a clean run ended on its longest files (decision 305).
const timesCache = path.join(root, 'node_modules/.cache/trading-platform/test-times.json');
const committedTimes = path.join(root, 'test/file-cpu-seconds.json');
const readTimes = (file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
};
const lastTimes = { ...readTimes(committedTimes), ...readTimes(timesCache) };
const expected = (file) => lastTimes[path.relative(root, file)] ?? Number.POSITIVE_INFINITY;
const queue = [...files].sort((a, b) => expected(b) - expected(a));
await Promise.all(
  Array.from({ length: Math.min(concurrency, files.length) }, async () => {
    for (let file = queue.shift(); file; file = queue.shift()) await runFile(file);
  }),
);

spawnSync(process.execPath, [...tsx, path.join(root, 'test/helpers/database-template.ts'), 'drop'], {
  cwd: root,
  env,
  stdio: 'inherit',
});

rmSync(usageDir, { recursive: true, force: true });

const failed = results.filter((r) => !r.ok);
// Ranked by CPU time, which a busy machine hardly changes; wall time beside it.
const slowest = [...results].sort((a, b) => b.cpu - a.cpu).slice(0, 10);
const cpuTotal = results.reduce((sum, r) => sum + r.cpu, 0);
console.log(
  `\n# slowest files (CPU s, wall s)\n${slowest
    .map((r) => `#   ${r.cpu.toFixed(1).padStart(5)}  ${r.seconds.toFixed(1).padStart(5)}  ${r.name}`)
    .join('\n')}`,
);
console.log(
  `# ${cpuTotal.toFixed(0)} CPU s in the files; at least ${(cpuTotal / availableParallelism()).toFixed(0)} s ` +
    `on ${availableParallelism()} idle cores`,
);
try {
  for (const r of results) if (r.cpu > 0) lastTimes[r.name] = Number(r.cpu.toFixed(2));
  mkdirSync(path.dirname(timesCache), { recursive: true });
  writeFileSync(timesCache, `${JSON.stringify(lastTimes, null, 1)}\n`);
} catch {
  // Only the order of the next run depends on it.
}
if (process.env.UPDATE_TEST_ORDER && targets.length === 0 && failed.length === 0) {
  // Whole seconds, in name order: the order matters, not the decimals, and the diff stays small.
  const byName = Object.fromEntries(
    results
      .filter((r) => r.cpu > 0)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((r) => [r.name, Math.max(1, Math.round(r.cpu))]),
  );
  writeFileSync(committedTimes, `${JSON.stringify(byName, null, 2)}\n`);
}
if (process.env.TEST_TIMES_FILE) {
  const times = results.map(({ name, seconds, cpu, children, maxRssMiB, ok }) => ({
    name,
    wall: Number(seconds.toFixed(2)),
    cpu: Number(cpu.toFixed(2)),
    children: Number(children.toFixed(2)),
    maxRssMiB,
    ok,
  }));
  writeFileSync(process.env.TEST_TIMES_FILE, `${JSON.stringify(times, null, 1)}\n`);
}
console.log(
  `\n# ${files.length} files, ${totals.tests} tests: ${totals.pass} passed, ${totals.fail} ` +
    `failed, ${totals.skipped} skipped, ${totals.cancelled} cancelled, ${totals.todo} ` +
    `todo; ${((performance.now() - started) / 1000).toFixed(1)} s with ${concurrency} at a time`,
);
if (skipReasons.size > 0) {
  console.log(
    '# skipped, and ' +
      `why:\n${[...skipReasons].map(([reason, n]) => `#   ${String(n).padStart(4)}  ${reason}`).join('\n')}`,
  );
}
if (failed.length > 0) console.log(`# failed files:\n${failed.map((r) => `#   ${r.name}\n${r.why}`).join('\n')}`);
process.exit(failed.length > 0 || totals.fail > 0 || totals.cancelled > 0 ? 1 : 0);
