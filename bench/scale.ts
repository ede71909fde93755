// `npm run bench:scale` (issue 21): the app, started as `npm start` starts it, on PostgreSQL with a
// platform's worth of rows (bench/scale-seed.ts) and on a database of the same shape at 1/100, side by side:
// p50/p99 and the share of non-200 answers per endpoint at BENCH_SCALE_CONNECTIONS connections after a
// warm-up, then every scheduled job's duration (started → finished, as its run record says).
//
// Targets: big p99 ≤ 50 ms and ≤ 2 × max(small p99, 10 ms) per endpoint; each job < 1 s on the big database.
// Exits non-zero on a miss only with BENCH_STRICT=1. Method and results: bench/README.md.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { JOB_DEFINITIONS } from '../src/declarations.ts';
import { createPasswordHasher } from '../src/platform/crypto/passwords.ts';
import { startBinanceFake } from '../test/fakes/binance.ts';
import { startCoinGeckoFake } from '../test/fakes/coingecko.ts';
import { percentile, runLoad } from './load.ts';
import { freePort } from './ports.ts';
import { ADMIN_EMAIL, countsAt, HEAVY_EMAIL, restoreJobRows, seed, SEED_VERSION, type Counts } from './scale-seed.ts';

const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const FACTOR = Number(process.env.BENCH_SCALE ?? 1);
const SMALL_FACTOR = FACTOR / 100;
const CONNECTIONS = Number(process.env.BENCH_SCALE_CONNECTIONS ?? 10);
const ROUND_MS = Number(process.env.BENCH_SCALE_ROUND_MS ?? 5_000);
const WARMUP_MS = Number(process.env.BENCH_SCALE_WARMUP_MS ?? 1_000);
const RESEED = process.env.BENCH_SCALE_RESEED === '1';
const STRICT = process.env.BENCH_STRICT === '1';
/** Only these databases (comma-separated: small,big); both by default. */
const ONLY = process.env.BENCH_SCALE_ONLY?.split(',').map((s) => s.trim());
/**
 * Diagnosis: with BENCH_SCALE_EXPLAIN_MS=n, every statement of the app taking n ms or more has its plan
 * (EXPLAIN ANALYZE, BUFFERS) written to the PostgreSQL server's log by auto_explain, for this run only.
 * Timing every plan node slows the statements down: figures of such a run are not the bench's figures.
 */
const EXPLAIN_MS = process.env.BENCH_SCALE_EXPLAIN_MS;
/**
 * Diagnosis: only the endpoints whose URL, and the jobs whose name, contains one of these
 * (comma-separated). A run with a filter measures part of the table: its figures are not recorded as
 * the bench's.
 */
const FILTER = process.env.BENCH_SCALE_FILTER?.split(',').map((s) => s.trim());
const selected = (name: string) => !FILTER || FILTER.some((part) => name.includes(part));
/** Diagnosis: the server's CPU profile (`--cpu-prof`) written to this directory when it stops. */
const PROFILE_DIR = process.env.BENCH_SCALE_PROFILE_DIR;

const P99_TARGET_MS = 50;
const RATIO_TARGET = 2;
/** The small figure a big one is compared with is at least this, so 1 ms → 3 ms is not a miss. */
const RATIO_FLOOR_MS = 10;
const JOB_TARGET_MS = 1_000;
/** The agent activity feed's default page (`limit`): what a window of the last day holds at most. */
const ACTIVITY_PAGE = 500;

const PASSWORD = 'bench-scale-password-123';
const JWT_SECRET = 'bench-jwt-secret-that-is-long-enough-0123456789';
const JOB_SECRET = 'bench-scheduled-job-secret-0123456789abcdef';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

interface Endpoint {
  /** The row's name: the big database's URL. */
  name: string;
  /** The URL on a database of `counts` (deep pages scale with the data, so they stay as deep relatively). */
  url: (counts: Counts) => string;
  auth: 'none' | 'admin' | 'heavy';
}

/** The user whose number the admin searches for: 12345 of 200,000 users, 123 of 2,000. */
const searchedUser = (c: Counts) => Math.round(c.users * 0.061725);

const fixed = (url: string, auth: Endpoint['auth']): Endpoint => ({ name: url, url: () => url, auth });

export const ENDPOINTS: Endpoint[] = [
  fixed('/api/webhooks/platforms/health', 'none'),
  fixed('/api/v1/dashboard/integrations', 'none'),
  fixed('/api/exchange/trades?exchange=binance&limit=100', 'heavy'),
  {
    name: '/api/exchange/trades?exchange=binance&limit=100&offset=400000',
    url: (c) => `/api/exchange/trades?exchange=binance&limit=100&offset=${Math.round(c.heavyTrades * 0.8)}`,
    auth: 'heavy',
  },
  fixed('/api/exchange/trades/stats', 'heavy'),
  fixed('/api/admin/users?page=1&limit=50', 'admin'),
  {
    name: '/api/admin/users?page=3000&limit=50',
    url: (c) => `/api/admin/users?page=${Math.max(1, Math.round((c.users * 0.75) / 50))}&limit=50`,
    auth: 'admin',
  },
  fixed('/api/admin/stats', 'admin'),
  // The admin search (issue 42 part 2), as an admin types it: an e-mail's start, a part of it and a name.
  // User n is `user{n}@bench.example`, `First{n} Last{n}`; the terms pick the same rows on both databases
  // (user 12345 of 200,000 is user 123 of 2,000).
  {
    name: '/api/admin/users?search=user12345&limit=50',
    url: (c) => `/api/admin/users?search=user${searchedUser(c)}&limit=50`,
    auth: 'admin',
  },
  {
    name: '/api/admin/users?search=2345&limit=50',
    url: (c) => `/api/admin/users?search=${String(searchedUser(c)).slice(1)}&limit=50`,
    auth: 'admin',
  },
  {
    name: '/api/admin/users?search=first12345%20last12345&limit=50',
    url: (c) => `/api/admin/users?search=first${searchedUser(c)}%20last${searchedUser(c)}&limit=50`,
    auth: 'admin',
  },
  // A term every account matches (the e-mails' domain): its total is counted up to its bound (decision 310).
  fixed('/api/admin/users?search=bench.example&limit=50', 'admin'),
  // Filtered pages (decision 401): a rare role, a rare status, and each with a term every account matches.
  // Statements with values are planned once for any value (database.ts), so these lines show whether
  // the one plan suits a rare value as well as a common one.
  fixed('/api/admin/users?role=admin&limit=50', 'admin'),
  fixed('/api/admin/users?status=suspended&limit=50', 'admin'),
  fixed('/api/admin/users?search=bench.example&role=admin&limit=50', 'admin'),
  fixed('/api/admin/users?search=bench.example&status=suspended&limit=50', 'admin'),
  fixed('/api/admin/command-center/intel', 'admin'),
  fixed('/api/v1/tracker/issues', 'admin'),
  {
    // The same page on both: the default window (24 hours) holds a full page of 500 events on the big
    // database but about 55 on the small one, so the small database is asked for the window that
    // holds a full page too (as deep pages are taken at the same depth): 500 rows against 500 rows.
    name: '/api/admin/command-center/agent-activity',
    url: (c) => {
      const perHour = c.agentActivity / (90 * 24);
      const hours = Math.min(720, Math.max(24, Math.ceil(ACTIVITY_PAGE / perHour)));
      return hours === 24
        ? '/api/admin/command-center/agent-activity'
        : `/api/admin/command-center/agent-activity?hours=${hours}`;
    },
    auth: 'admin',
  },
  fixed('/api/v1/dashboard/overview', 'admin'),
  fixed('/api/admin/command-center/tasks', 'admin'),
  {
    name: '/api/admin/command-center/tasks?offset=75000',
    url: (c) => `/api/admin/command-center/tasks?offset=${Math.round(c.tasks * 0.75)}`,
    auth: 'admin',
  },
  // One assignee's tasks (a tenth of the board, every day): its page and a deep one, bounded by the days
  // its kept counts say hold them (decision 1470).
  fixed('/api/admin/command-center/tasks?assignee=agent-3', 'admin'),
  {
    name: '/api/admin/command-center/tasks?assignee=agent-3&offset=7500',
    url: (c) => `/api/admin/command-center/tasks?assignee=agent-3&offset=${Math.round(c.tasks * 0.075)}`,
    auth: 'admin',
  },
];

/** The scheduled jobs, as the app registers them (each is triggered at POST /api/scheduled/{name}). */
const JOBS: string[] = JOB_DEFINITIONS.map((job) => job.name);

interface Figures {
  p50: number;
  p99: number;
  requests: number;
  non200: number;
  errors: number;
  statuses: string;
}

interface DatabaseRun {
  label: 'small' | 'big';
  database: string;
  counts: Counts;
  endpoints: Map<string, Figures>;
  jobs: Map<string, { ms: number; status: string; result: string }>;
  seedSeconds?: number;
}

function urlOf(database: string): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function onServer<T>(database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: urlOf(database) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The app as `npm start` runs it: the start script's node flags and entry point, without npm around it. */
function startApp(env: Record<string, string>): ChildProcess {
  const script = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const [command, ...args] = script.split(/\s+/);
  if (command !== 'node') throw new Error(`npm start runs ${command}, not node`);
  const base: Record<string, string | undefined> = {
    ...process.env,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    ...env,
  };
  if (!process.env.REDIS_URL) delete base.REDIS_URL;
  const profile = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : [];
  return spawn(process.execPath, [...profile, ...args], {
    cwd: root,
    env: base,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function waitForHttp(port: number, url: string, timeoutMs = 300_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}${url}`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs) throw new Error(`nothing answered ${url} on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function request<T>(
  port: number,
  method: string,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`http://127.0.0.1:${port}${url}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

interface Upstreams {
  env: Record<string, string>;
  close(): Promise<void>;
}

async function startUpstreams(): Promise<Upstreams> {
  const binance = await startBinanceFake();
  const coingecko = await startCoinGeckoFake();
  return {
    env: { BINANCE_API_URL: binance.url, COINGECKO_API_URL: coingecko.url },
    close: async () => {
      await binance.close();
      await coingecko.close();
    },
  };
}

/** Runs the app on `database` until `work` is done. */
async function withApp<T>(database: string, upstreams: Upstreams, work: (port: number) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tp-bench-scale-'));
  const port = await freePort();
  const child = startApp({
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: urlOf(database),
    JWT_SECRET,
    SCHEDULED_JOB_SECRET: JOB_SECRET,
    // The bench triggers the jobs itself; the in-process scheduler must not run them meanwhile.
    SCHEDULER: 'off',
    MARKET_LIVE_STREAM: 'false',
    ...upstreams.env,
  });
  try {
    await waitForHttp(port, '/healthz');
    return await work(port);
  } finally {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The app's migrations, one digest per file in order (`0000_init.sql:ab12…,0001_….sql:…`). A database seeded
 * under a prefix of these is reused: the app applies the migrations added since as it starts, as it would on
 * a running platform (an index or a kept figure added later is built over the seeded rows by its migration).
 * A database migrated by other ones (a file changed or removed) is seeded again: the app could not migrate it,
 * and its indexes would not be the ones measured.
 */
function migrationsDigests(): string[] {
  const folder = path.join(root, 'drizzle');
  return readdirSync(folder)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map(
      (file) =>
        `${file}:${createHash('sha256')
          .update(readFileSync(path.join(folder, file)))
          .digest('hex')
          .slice(0, 16)}`,
    );
}

/** Whether a database seeded under `seeded` (the marker's list) can be reused with the current migrations. */
function migrationsExtend(seeded: string): boolean {
  const before = seeded.split(',');
  const now = migrationsDigests();
  return before.length <= now.length && before.every((entry, i) => entry === now[i]);
}

/** The reconcile command, if the app has one (issue 21, point 3). */
function hasReconcile(): boolean {
  return (
    spawnSync('grep', ['-rqs', 'db:reconcile', path.join(root, 'src/cli.ts'), path.join(root, 'src/cli')]).status === 0
  );
}

/**
 * Creates, migrates (by starting the app on it once) and seeds `database`, unless it already holds this
 * seed version at this factor, made with these migrations (BENCH_SCALE_RESEED=1 seeds again). Answers the seed's
 * seconds, or undefined when reused.
 */
async function ensureSeeded(database: string, factor: number, upstreams: Upstreams): Promise<number | undefined> {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  try {
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rows.length > 0;
    if (exists && !RESEED) {
      const marker = await onServer(database, async (client) => {
        const table = await client.query(`SELECT to_regclass('bench_seed') AS t`);
        if (table.rows[0].t === null) return undefined;
        const columns = await client.query(
          `SELECT 1 FROM information_schema.columns WHERE table_name = 'bench_seed' AND column_name = 'migrations'`,
        );
        if (columns.rows.length === 0) return undefined;
        return (
          await client.query<{ version: number; factor: number; migrations: string }>(
            'SELECT version, factor, migrations FROM bench_seed',
          )
        ).rows[0];
      });
      if (
        marker &&
        marker.version === SEED_VERSION &&
        marker.factor === factor &&
        migrationsExtend(marker.migrations)
      ) {
        const added = migrationsDigests().length - marker.migrations.split(',').length;
        console.log(
          `${database}: seeded (version ${SEED_VERSION}, factor ${factor}, ` +
            `${added === 0 ? 'these migrations' : `${added} migration(s) since, which the app applies as it starts`}), ` +
            'reused; BENCH_SCALE_RESEED=1 seeds again',
        );
        return undefined;
      }
      const found = marker ? 'seeded by another seed version, factor or migrations' : 'no finished seed of this bench';
      console.log(`${database}: ${found}; seeding again`);
    }
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  console.log(`${database}: migrating (the app's migrations, applied as the app starts)`);
  await withApp(database, upstreams, async () => undefined);
  console.log(`${database}: seeding at factor ${factor}`);
  const started = performance.now();
  const hash = await createPasswordHasher().hash(PASSWORD);
  await onServer(database, async (client) => {
    await seed(client, factor, hash, console.log);
    await client.query(
      'CREATE TABLE bench_seed (version integer NOT NULL, factor double precision NOT NULL, ' +
        'migrations text NOT NULL, seeded_at timestamptz NOT NULL DEFAULT now())',
    );
    await client.query('INSERT INTO bench_seed (version, factor, migrations) VALUES ($1, $2, $3)', [
      SEED_VERSION,
      factor,
      migrationsDigests().join(','),
    ]);
  });
  const seconds = (performance.now() - started) / 1000;
  console.log(`${database}: seeded in ${seconds.toFixed(0)} s`);
  if (hasReconcile()) {
    const reconciling = performance.now();
    const result = spawnSync(process.execPath, ['scripts/run.mjs', 'cli', 'db:reconcile'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: urlOf(database) },
      stdio: 'inherit',
    });
    // Reported, not fatal: the figures can still be measured (and a failing reconcile is itself a finding).
    console.log(
      `${database}: db:reconcile ${result.status === 0 ? 'done' : `FAILED (exit ${result.status})`} ` +
        `in ${((performance.now() - reconciling) / 1000).toFixed(1)} s`,
    );
  } else {
    console.log(`${database}: no db:reconcile command in this version of the app; skipped`);
  }
  return seconds;
}

async function login(port: number, email: string): Promise<string> {
  const answer = await request<{ access_token?: string; detail?: unknown }>(port, 'POST', '/api/auth/login', {
    email,
    password: PASSWORD,
  });
  if (answer.status !== 200 || !answer.body.access_token)
    throw new Error(`login of ${email}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.access_token;
}

async function measureEndpoints(port: number, run: DatabaseRun): Promise<void> {
  const tokens = { admin: await login(port, ADMIN_EMAIL), heavy: await login(port, HEAVY_EMAIL) };
  for (const endpoint of ENDPOINTS) {
    if (!selected(endpoint.name)) continue;
    const url = endpoint.url(run.counts);
    const headers: Record<string, string> =
      endpoint.auth === 'none' ? {} : { authorization: `Bearer ${tokens[endpoint.auth]}` };
    const first = await request<unknown>(port, 'GET', url, undefined, headers);
    await runLoad({ port, path: url, connections: CONNECTIONS, durationMs: WARMUP_MS, maxRequests: 100_000, headers });
    const result = await runLoad({
      port,
      path: url,
      connections: CONNECTIONS,
      durationMs: ROUND_MS,
      maxRequests: 100_000,
      headers,
    });
    const figures: Figures = {
      p50: percentile(result.latenciesUs, 50) / 1000,
      p99: percentile(result.latenciesUs, 99) / 1000,
      requests: result.requests,
      non200: result.non200,
      errors: result.errors,
      statuses: Object.entries(result.statuses)
        .map(([code, n]) => `${code} ×${n}`)
        .join(', '),
    };
    if (first.status !== 200)
      console.log(
        `${run.label} ${url}: the first answer was ${first.status}: ${JSON.stringify(first.body).slice(0, 200)}`,
      );
    run.endpoints.set(endpoint.name, figures);
    console.log(
      `${run.label} ${url}: ${result.requests} requests, p50 ${figures.p50.toFixed(1)} ms, ` +
        `p99 ${figures.p99.toFixed(1)} ms, ` +
        `non-200 ${result.non200}${figures.statuses ? ` (${figures.statuses})` : ''}, errors ${result.errors}`,
    );
  }
}

interface RunAnswer {
  status: string;
  run_id: string;
  started_at: string;
  finished_at: string | null;
  result?: unknown;
  error?: string | null;
}

async function measureJobs(port: number, run: DatabaseRun): Promise<void> {
  const headers = { 'x-scheduled-job-secret': JOB_SECRET };
  for (const job of JOBS.filter(selected)) {
    const triggered = await request<RunAnswer>(port, 'POST', `/api/scheduled/${job}`, undefined, headers);
    if (triggered.status !== 202 && triggered.status !== 200) {
      run.jobs.set(job, {
        ms: NaN,
        status: `trigger answered ${triggered.status}`,
        result: JSON.stringify(triggered.body).slice(0, 200),
      });
      continue;
    }
    let answer = triggered.body;
    const deadline = Date.now() + 600_000;
    while (answer.status === 'running' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = (
        await request<RunAnswer>(port, 'GET', `/api/scheduled/runs/${triggered.body.run_id}`, undefined, headers)
      ).body;
    }
    const ms = answer.finished_at ? Date.parse(answer.finished_at) - Date.parse(answer.started_at) : NaN;
    const result = JSON.stringify(answer.result ?? answer.error ?? null);
    run.jobs.set(job, { ms, status: answer.status, result });
    console.log(`${run.label} job ${job}: ${answer.status} in ${ms} ms; ${result}`);
  }
}

/** A duration in ms, as a table cell (the unit is in the column's name). */
const ms = (value: number | undefined) =>
  value === undefined || Number.isNaN(value) ? '–' : value >= 100 ? value.toFixed(0) : value.toFixed(1);
const share = (f: Figures | undefined) =>
  f === undefined
    ? '–'
    : f.requests === 0
      ? 'no answer'
      : `${(((f.non200 + f.errors) / (f.requests + f.errors)) * 100).toFixed(0)}%${f.statuses ? ` (${f.statuses})` : ''}`;

function report(small: DatabaseRun | undefined, big: DatabaseRun | undefined): boolean {
  let ok = true;
  const lines = [
    '| endpoint | small p50 ms | small p99 ms | big p50 ms | big p99 ms | big/small p99 | ' +
      'non-200 small / big | verdict |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const endpoint of ENDPOINTS) {
    const s = small?.endpoints.get(endpoint.name);
    const b = big?.endpoints.get(endpoint.name);
    let verdict = '–';
    if (!b) ok = false;
    if (b) {
      const misses: string[] = [];
      if (!(b.p99 <= P99_TARGET_MS)) misses.push(`p99 > ${P99_TARGET_MS} ms`);
      if (s && !(b.p99 <= RATIO_TARGET * Math.max(s.p99, RATIO_FLOOR_MS))) misses.push(`> ${RATIO_TARGET}× small`);
      if (b.non200 + b.errors > 0 || b.requests === 0) misses.push('non-200 answers');
      verdict = misses.length === 0 ? 'PASS' : `FAIL (${misses.join(', ')})`;
      if (misses.length > 0) ok = false;
    }
    const ratio = s && b ? (b.p99 / s.p99).toFixed(1) : '–';
    lines.push(
      `| \`GET ${endpoint.name}\` | ${ms(s?.p50)} | ${ms(s?.p99)} | ${ms(b?.p50)} | ${ms(b?.p99)} | ${ratio} ` +
        `| ${share(s)} / ${share(b)} | ${verdict} |`,
    );
  }
  lines.push('', '| job | small ms | big ms | big: status and result | verdict |', '|---|---|---|---|---|');
  for (const job of JOBS) {
    const s = small?.jobs.get(job);
    const b = big?.jobs.get(job);
    let verdict = '–';
    if (!b) ok = false;
    if (b) {
      const pass = b.ms < JOB_TARGET_MS && (b.status === 'succeeded' || b.status === 'partial');
      verdict = pass ? 'PASS' : `FAIL (${b.status}${b.ms >= JOB_TARGET_MS ? `, ≥ ${JOB_TARGET_MS / 1000} s` : ''})`;
      if (!pass) ok = false;
    }
    const result = b ? (b.result.length > 120 ? `${b.result.slice(0, 117)}…` : b.result) : '';
    lines.push(`| ${job} | ${ms(s?.ms)} | ${ms(b?.ms)} | ${b ? `${b.status}: \`${result}\`` : '–'} | ${verdict} |`);
  }
  const load = loadavg()
    .map((n) => n.toFixed(1))
    .join(' / ');
  console.log(
    [
      '',
      `## npm run bench:scale: ${CONNECTIONS} connections, ${WARMUP_MS / 1000} s warm-up, ${ROUND_MS / 1000} s ` +
        `measured per endpoint; factor ${FACTOR}; load average at the end ${load} (1/5/15 min)`,
      '',
      ...lines,
      '',
    ].join('\n'),
  );
  console.log(
    `Rule: an endpoint passes when its big p99 ≤ ${P99_TARGET_MS} ms, ≤ ${RATIO_TARGET} × max(small ` +
      `p99, ${RATIO_FLOOR_MS} ms), and every answer was 200; a job when it ends (succeeded/partial) in ` +
      `< ${JOB_TARGET_MS / 1000} s on the big database.`,
  );
  console.log(
    ok
      ? 'ALL PASS'
      : `NOT ALL PASS (a miss, or no big figures)${STRICT ? '' : '; BENCH_STRICT=1 makes that exit non-zero'}`,
  );
  return ok;
}

async function runDatabase(label: 'small' | 'big', factor: number, upstreams: Upstreams): Promise<DatabaseRun> {
  const database = `bench_scale_${label}`;
  const seedSeconds = await ensureSeeded(database, factor, upstreams);
  const run: DatabaseRun = {
    label,
    database,
    counts: countsAt(factor),
    endpoints: new Map(),
    jobs: new Map(),
    seedSeconds,
  };
  const explain =
    EXPLAIN_MS === undefined
      ? []
      : [
          `session_preload_libraries = 'auto_explain'`,
          `auto_explain.log_min_duration = ${Number(EXPLAIN_MS)}`,
          'auto_explain.log_analyze = on',
          'auto_explain.log_buffers = on',
        ];
  for (const setting of explain)
    await onServer('postgres', (client) => client.query(`ALTER DATABASE ${database} SET ${setting}`));
  try {
    await measure(database, factor, upstreams, run);
  } finally {
    for (const setting of explain)
      await onServer('postgres', (client) =>
        client.query(`ALTER DATABASE ${database} RESET ${setting.split(' = ')[0]}`),
      );
  }
  return run;
}

async function measure(database: string, factor: number, upstreams: Upstreams, run: DatabaseRun): Promise<void> {
  await withApp(database, upstreams, async (port) => {
    await measureEndpoints(port, run);
    if (!JOBS.some(selected)) return;
    // The jobs delete and change rows: their rows are put back as seeded first, so every run finds the same work.
    const restoring = performance.now();
    const { checkpointed } = await onServer(database, (client) => restoreJobRows(client, factor));
    console.log(
      `${database}: the jobs' rows restored in ${((performance.now() - restoring) / 1000).toFixed(1)} s` +
        (checkpointed ? ', then a checkpoint' : '; no checkpoint (needs superuser or pg_checkpoint): job figures vary'),
    );
    await measureJobs(port, run);
  });
}

async function main(): Promise<void> {
  if (spawnSync('pg_isready', ['-d', SERVER_URL, '-q']).status !== 0) {
    console.log(`SKIPPED: no PostgreSQL answers at ${SERVER_URL} (set BENCH_DATABASE_URL).`);
    return;
  }
  console.log(
    `node ${process.version}; PostgreSQL at ${new URL(SERVER_URL).host}; factor ${FACTOR} ` +
      `(small ${SMALL_FACTOR}); jobs: ${JOBS.join(', ')}`,
  );
  const upstreams = await startUpstreams();
  try {
    const small = !ONLY || ONLY.includes('small') ? await runDatabase('small', SMALL_FACTOR, upstreams) : undefined;
    const big = !ONLY || ONLY.includes('big') ? await runDatabase('big', FACTOR, upstreams) : undefined;
    const ok = report(small, big);
    if (STRICT && !ok) process.exitCode = 1;
  } finally {
    await upstreams.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
