// `npm run bench:start`: how long `npm start` takes to its first 200 on /healthz, and how much memory
// the server holds after 5 s idle (and at its peak while starting), in three modes: PostgreSQL and
// Redis, embedded PGlite on an existing data directory, and embedded on an empty one (the first start
// ever). A bare `node -e ''` is measured in the same run as the floor. Each figure is the median of
// BENCH_START_RUNS runs (default 5), the modes interleaved so that load from elsewhere falls on all
// alike. Method and results: bench/README.md.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports.ts';
import { adminQuery, PG_URL } from './postgres.ts';

const RUNS = Number(process.env.BENCH_START_RUNS ?? 5);
const IDLE_MS = Number(process.env.BENCH_START_IDLE_MS ?? 5_000);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];

interface Sample {
  readyMs: number;
  idleRssMiB: number;
  peakRssMiB: number;
}

interface Mode {
  name: string;
  target: { readyMs: number; idleRssMiB: number; peakRssMiB?: number };
  /** The environment of one run; called before each run. */
  env(): Record<string, string>;
  after?(): void;
}

/** `/proc/<pid>/status` fields in kB, of the process and its descendants (npm → sh → node). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const all: number[] = [];
  const walk = (p: number) => {
    for (const child of children.get(p) ?? []) {
      all.push(child);
      walk(child);
    }
  };
  walk(pid);
  return all;
}

function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
  return match ? Number(match[1]) / 1024 : 0;
}

/** The server: the node process under npm running the main entry point. */
function serverPid(npmPid: number): number | undefined {
  return descendants(npmPid).find((pid) => {
    try {
      return /run\.mjs\0main|main\.(ts|js)/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  });
}

async function firstOk(port: number, child: ChildProcess, started: number): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.status === 200) return performance.now() - started;
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 120_000) throw new Error('no 200 from /healthz within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // The server first, then npm, which does not always pass a signal on.
  for (const pid of descendants(child.pid!).reverse()) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  child.kill('SIGTERM');
  await exited;
}

async function runOnce(mode: Mode): Promise<Sample> {
  const port = await freePort();
  const env = { ...process.env, LOG_LEVEL: 'warn', MARKET_LIVE_STREAM: 'false', PORT: String(port), ...mode.env() };
  const started = performance.now();
  const child = spawn(npm[0]!, [...npm.slice(1), 'start', '--silent'], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const readyMs = await firstOk(port, child, started);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const pid = serverPid(child.pid!);
    if (!pid) throw new Error('could not find the server process under npm');
    return { readyMs, idleRssMiB: status(pid, 'VmRSS'), peakRssMiB: status(pid, 'VmHWM') };
  } finally {
    await stop(child);
    mode.after?.();
  }
}

function bareNodeMs(): number {
  const started = performance.now();
  spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return performance.now() - started;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

function servicesUp(): boolean {
  const pg = spawnSync('pg_isready', ['-d', PG_URL, '-q']);
  const redis = spawnSync('redis-cli', ['-u', REDIS_URL, 'ping'], { encoding: 'utf8' });
  return pg.status === 0 && redis.stdout?.trim() === 'PONG';
}

async function main(): Promise<void> {
  const existing = mkdtempSync(path.join(tmpdir(), 'tp-bench-data-'));
  const empties: string[] = [];
  const modes: Mode[] = [];
  // A database of its own, migrated by the first (unmeasured) start, dropped at the end: whatever an
  // earlier schema left in BENCH_DATABASE_URL's database cannot get in the way.
  const scratch = `tp_bench_start_${process.pid}`;
  let scratchUrl: string | undefined;
  if (servicesUp()) {
    await adminQuery(`CREATE DATABASE ${scratch}`);
    const url = new URL(PG_URL);
    url.pathname = `/${scratch}`;
    scratchUrl = url.toString();
    modes.push({
      name: 'PostgreSQL + Redis',
      target: { readyMs: 1_000, idleRssMiB: 120 },
      env: () => ({ DATABASE_URL: scratchUrl!, REDIS_URL, DATA_DIR: existing }),
    });
  } else {
    console.log(
      `SKIPPED: PostgreSQL (${PG_URL}) and Redis (${REDIS_URL}) are not both reachable; the ` +
        'PostgreSQL + Redis mode did not run.',
    );
  }
  modes.push({
    name: 'embedded, existing ./data',
    target: { readyMs: 2_000, idleRssMiB: 250, peakRssMiB: 400 },
    env: () => ({ DATA_DIR: existing }),
  });
  modes.push({
    name: 'embedded, empty ./data',
    target: { readyMs: 4_000, idleRssMiB: 250, peakRssMiB: 400 },
    env: () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'tp-bench-empty-'));
      empties.push(dir);
      return { DATA_DIR: dir };
    },
    after: () => {
      for (const dir of empties.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  });

  const samples = new Map<string, Sample[]>(modes.map((mode) => [mode.name, []]));
  const floor: number[] = [];
  try {
    // One unmeasured start per mode: builds what a first install builds, fills ./data and the OS cache.
    for (const mode of modes) await runOnce(mode);
    for (let run = 0; run < RUNS; run++) {
      floor.push(bareNodeMs());
      for (const mode of modes) samples.get(mode.name)!.push(await runOnce(mode));
    }
  } finally {
    rmSync(existing, { recursive: true, force: true });
    if (scratchUrl) await adminQuery(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
  }

  const floorMs = median(floor);
  console.log(
    `\nnpm start → first 200 of /healthz; RSS of the server process. Median of ${RUNS} runs, node ${process.version}.`,
  );
  console.log(`Floor: a bare \`node -e ''\` starts and exits in ${floorMs.toFixed(0)} ms.\n`);
  console.log('| mode | ready ms (target) | ready / floor | RSS after 5 s idle MiB (target) | peak RSS MiB (target) |');
  console.log('|---|---|---|---|---|');
  let missed = 0;
  for (const mode of modes) {
    const list = samples.get(mode.name)!;
    const ready = median(list.map((s) => s.readyMs));
    const idle = median(list.map((s) => s.idleRssMiB));
    const peak = median(list.map((s) => s.peakRssMiB));
    const { target } = mode;
    const marks = [
      ready <= target.readyMs,
      idle <= target.idleRssMiB,
      target.peakRssMiB === undefined || peak <= target.peakRssMiB,
    ];
    missed += marks.filter((ok) => !ok).length;
    const mark = (ok: boolean) => (ok ? '' : ' **missed**');
    console.log(
      `| ${mode.name} | ${ready.toFixed(0)} (≤ ${target.readyMs})${mark(marks[0]!)} ` +
        `| ${(ready / floorMs).toFixed(1)} | ${idle.toFixed(0)} (≤ ${target.idleRssMiB})${mark(marks[1]!)} ` +
        `| ${peak.toFixed(0)}${target.peakRssMiB ? ` (≤ ${target.peakRssMiB})` : ''}${mark(marks[2]!)} |`,
    );
  }
  console.log(missed === 0 ? '\nPASS: every target met' : `\nFAIL: ${missed} target(s) missed`);
  process.exitCode = missed === 0 ? 0 : 1;
}

await main();
