// `npm run bench`: the real app, started as `npm start` starts it, against a minimal node:http program
// doing the same work, in two scenarios, each measured in one run:
//   1. a cached GET /api/v1/market/ticker?limit=20 (embedded PGlite, Binance and CoinGecko fakes as
//      upstreams) against a bare node:http server answering the same bytes; and the upstream calls
//      per 1,000 requests;
//   2. an authenticated, database-backed GET /api/exchange/credentials with a bearer token (on this
//      machine's PostgreSQL) against node:http + pg doing the same token check and query
//      (bench/db-bare-server.ts).
// 50 keep-alive connections each; both servers run side by side and are measured in alternating rounds
// (app, bare, bare, app, ...) so that load from elsewhere on the machine falls on both alike; scenario 1's
// ratio is also given pass by pass (each app round against the bare round beside it).
// 3. GET /api/portfolio/summary for a user with 100,000 stored trades (bench/portfolio.ts).
// 4. POST /api/orders, paper and live market orders from 50 users: closed loops for the capacity, then at
//    a stated pace (open loop), where the targets are judged (bench/orders.ts, decision 320).
// 5. TradingView alert acknowledgement at 50 alerts/s, each through the order step (bench/alerts.ts).
// Method and results: bench/README.md.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBinanceFake } from '../test/fakes/binance.ts';
import { startCoinGeckoFake } from '../test/fakes/coingecko.ts';
import { percentile, runLoad, type LoadResult } from './load.ts';
import { freePort } from './ports.ts';
import { adminQuery, PG_URL } from './postgres.ts';
import { ordersScenario } from './orders.ts';
import { portfolioScenario } from './portfolio.ts';
import { alertsScenario } from './alerts.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 2_500);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 3_000);
/** Bound on requests per round, besides its time. */
const MAX_REQUESTS = Number(process.env.BENCH_MAX_REQUESTS ?? 500_000);
const TICKER_PATH = '/api/v1/market/ticker?limit=20';
const CREDENTIALS_PATH = '/api/exchange/credentials';
/** The ticker cache TTL (src/modules/market/market-data.ts POLICIES.tickers). */
const CACHE_WINDOW_MS = 5_000;
const TICKER_TARGET = 0.9;
const CREDENTIALS_TARGET = 0.5;
const JWT_SECRET = 'bench-jwt-secret-that-is-long-enough-0123456789';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

interface Server {
  name: string;
  port: number;
  child: ChildProcess;
  rounds: LoadResult[];
  cpuMs: number;
}

/**
 * The app as `npm start` runs it: the start script's node flags and entry point, without npm around it;
 * from this checkout, or from another one (`checkout`, built) for a comparison.
 */
function startApp(env: Record<string, string>, checkout = root): ChildProcess {
  const script = (
    JSON.parse(readFileSync(path.join(checkout, 'package.json'), 'utf8')) as { scripts: { start: string } }
  ).scripts.start;
  const [command, ...args] = script.split(/\s+/);
  if (command !== 'node') throw new Error(`npm start runs ${command}, not node`);
  return spawn(process.execPath, args, {
    cwd: checkout,
    env: { ...process.env, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', ...env },
    stdio: ['ignore', process.env.BENCH_DEBUG_STDOUT ? 'inherit' : 'ignore', 'inherit'],
  });
}

function startTs(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function waitForHttp(
  port: number,
  url: string,
  headers: Record<string, string> = {},
  timeoutMs = 180_000,
): Promise<Response> {
  const started = Date.now();
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}${url}`, { headers });
      if (response.ok) return response;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs) throw new Error(`nothing answered ${url} on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** CPU time (user + system) a process has used so far, in ms; Linux /proc. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticksPerSecond = 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

function summary(server: Server) {
  const requests = server.rounds.reduce((n, r) => n + r.requests, 0);
  const elapsedMs = server.rounds.reduce((n, r) => n + r.elapsedMs, 0);
  const latencies = Float64Array.from(server.rounds.flatMap((r) => [...r.latenciesUs])).sort();
  const failures = server.rounds.reduce((n, r) => n + r.errors + r.non200, 0);
  return {
    requests,
    rps: (requests / elapsedMs) * 1000,
    p50: percentile(latencies, 50) / 1000,
    p99: percentile(latencies, 99) / 1000,
    cpuPerRequestUs: (server.cpuMs * 1000) / requests,
    failures,
  };
}

type Summary = ReturnType<typeof summary>;

/** The middle of some figures. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Warm-up, then measured rounds on one path. Each pass runs every server once, and the order turns by one
 * each pass (two servers: A/B, B/A, A/B, ...; three: A/B/C, B/C/A, C/A/B, ...), so that every round of
 * one server has a round of each other next to it and none always runs first. Besides the totals, the
 * throughput of each server is divided by that of the last (the bare server) pass by pass: the median of
 * those ratios compares rounds run seconds apart, whatever the machine did between passes.
 */
async function compare(
  servers: Server[],
  urlPath: string,
  headers: Record<string, string>,
): Promise<{ summaries: Summary[]; passRatios: number[][] }> {
  const round = async (server: Server, durationMs: number, record: boolean) => {
    const cpuBefore = cpuMs(server.child.pid!);
    const result = await runLoad({
      port: server.port,
      path: urlPath,
      connections: CONNECTIONS,
      durationMs,
      maxRequests: MAX_REQUESTS,
      headers,
    });
    if (!record) return result;
    server.cpuMs += cpuMs(server.child.pid!) - cpuBefore;
    server.rounds.push(result);
    return result;
  };
  for (const server of servers) await round(server, WARMUP_MS, false);
  const rate = (result: LoadResult) => result.requests / result.elapsedMs;
  const passRatios: number[][] = servers.map(() => []);
  for (let i = 0; i < ROUNDS; i++) {
    const rates = new Map<Server, number>();
    for (let j = 0; j < servers.length; j++) {
      const server = servers[(i + j) % servers.length]!;
      rates.set(server, rate(await round(server, ROUND_MS, true)));
    }
    const reference = rates.get(servers.at(-1)!)!;
    for (const [k, server] of servers.entries()) passRatios[k]!.push(rates.get(server)! / reference);
  }
  return { summaries: servers.map(summary), passRatios };
}

function table(rows: [string, Summary][]): string[] {
  return [
    '| server | requests | requests/s | p50 ms | p99 ms | server CPU µs/request | errors |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      ([name, s]) =>
        `| ${name} | ${s.requests} | ${Math.round(s.rps)} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} ` +
        `| ${s.cpuPerRequestUs.toFixed(1)} | ${s.failures} |`,
    ),
  ];
}

const server = (name: string, port: number, child: ChildProcess): Server => ({
  name,
  port,
  child,
  rounds: [],
  cpuMs: 0,
});

/** The Binance and CoinGecko fakes an app of scenario 1 reads the market from, and its environment. */
async function tickerUpstreams(dataDir: string, port: number) {
  const binance = await startBinanceFake();
  const coingecko = await startCoinGeckoFake();
  return {
    calls: () => binance.requests.length + coingecko.requests.length,
    env: {
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      BINANCE_API_URL: binance.url,
      COINGECKO_API_URL: coingecko.url,
      MARKET_LIVE_STREAM: 'false',
    },
    close: async () => {
      await binance.close();
      await coingecko.close();
    },
  };
}

/**
 * Scenario 1: the cached ticker on the embedded defaults. Answers whether its targets were met.
 * BENCH_BASELINE=<another checkout, built>: that checkout's app is measured too, in the same rotation of
 * rounds, against its own fakes (e.g. the commit before a change, from `git archive`).
 */
async function tickerScenario(): Promise<boolean> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tp-bench-'));
  const upstreams: Awaited<ReturnType<typeof tickerUpstreams>>[] = [];
  const started: ChildProcess[] = [];
  try {
    // BENCH_CPU_PROF=dir: every server runs with --cpu-prof and writes its profile there when it stops.
    const profile: Record<string, string> = process.env.BENCH_CPU_PROF
      ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}` }
      : {};
    const appPort = await freePort();
    const ours = await tickerUpstreams(dataDir, appPort);
    upstreams.push(ours);
    const app = server('app (cached ticker)', appPort, startApp({ ...ours.env, ...profile }));
    started.push(app.child);
    await waitForHttp(appPort, '/healthz');
    const first = await waitForHttp(appPort, TICKER_PATH);
    const body = Buffer.from(await first.arrayBuffer());
    const contentType = first.headers.get('content-type') ?? 'application/json; charset=utf-8';
    const bodyFile = path.join(dataDir, 'ticker.json');
    writeFileSync(bodyFile, body);
    const apps = [app];
    if (process.env.BENCH_BASELINE) {
      const checkout = path.resolve(process.env.BENCH_BASELINE);
      const baselinePort = await freePort();
      const baselineDir = mkdtempSync(path.join(dataDir, 'baseline-'));
      const theirs = await tickerUpstreams(baselineDir, baselinePort);
      upstreams.push(theirs);
      const baseline = server('app (BENCH_BASELINE)', baselinePort, startApp({ ...theirs.env, ...profile }, checkout));
      started.push(baseline.child);
      await waitForHttp(baselinePort, TICKER_PATH);
      apps.push(baseline);
    }
    const barePort = await freePort();
    const bare = server(
      'bare node:http',
      barePort,
      startTs(['bench/bare-server.ts', String(barePort), bodyFile, contentType], profile),
    );
    started.push(bare.child);
    await waitForHttp(barePort, TICKER_PATH);

    const callsBefore = ours.calls();
    const measuringFrom = performance.now();
    const { summaries, passRatios } = await compare([...apps, bare], TICKER_PATH, {});
    const spanMs = performance.now() - measuringFrom;
    const calls = ours.calls() - callsBefore;
    const result = { app: summaries[0]!, bare: summaries.at(-1)! };
    const ratio = result.app.rps / result.bare.rps;
    const windows = Math.floor(spanMs / CACHE_WINDOW_MS) + 1;
    const pairs = (k: number) =>
      `median ${median(passRatios[k]!).toFixed(2)}; pass by pass ${passRatios[k]!.map((r) => r.toFixed(2)).join(' ')}`;
    console.log(
      [
        `## 1. GET ${TICKER_PATH}, cached, embedded defaults; ${body.length}-byte answer`,
        '',
        ...table([...apps, bare].map((s, k) => [s.name, summaries[k]!])),
        '',
        `throughput app/bare: ${ratio.toFixed(2)} (target ` +
          `≥ ${TICKER_TARGET}) ${ratio >= TICKER_TARGET ? 'PASS' : 'FAIL'}`,
        `throughput app/bare of the rounds run side by side: ${pairs(0)}`,
        ...apps
          .slice(1)
          .map((s, k) => `${s.name}/bare: ${(summaries[k + 1]!.rps / result.bare.rps).toFixed(2)}; ${pairs(k + 1)}`),
        `p99 app/bare: ${(result.app.p99 / result.bare.p99).toFixed(2)}; server CPU per request ` +
          `bare/app: ${(result.bare.cpuPerRequestUs / result.app.cpuPerRequestUs).toFixed(2)}`,
        `upstream calls while measuring: ${calls} over ${(spanMs / 1000).toFixed(1)} s = ${windows} cache ` +
          `windows of ${CACHE_WINDOW_MS / 1000} s (target ≤ 1 per window) ${calls <= windows ? 'PASS' : 'FAIL'}`,
        `upstream calls per 1,000 app requests: ${((calls / result.app.requests) * 1000).toFixed(4)}`,
        '',
      ].join('\n'),
    );
    return ratio >= TICKER_TARGET && calls <= windows && result.app.failures === 0;
  } finally {
    for (const child of started) await stop(child);
    for (const upstream of upstreams) await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function json<T>(
  port: number,
  method: string,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const response = await fetch(`http://127.0.0.1:${port}${url}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Scenario 2: an authenticated read from PostgreSQL. Answers whether its target was met, or undefined when skipped. */
async function credentialsScenario(): Promise<boolean | undefined> {
  if (spawnSync('pg_isready', ['-d', PG_URL, '-q']).status !== 0) {
    console.log(
      `## 2. GET ${CREDENTIALS_PATH}\n\nSKIPPED: no PostgreSQL answers at ${PG_URL} (set ` +
        'BENCH_DATABASE_URL); this scenario did not run.\n',
    );
    return undefined;
  }
  const database = `bench_${process.pid}`;
  await adminQuery(`CREATE DATABASE ${database}`);
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tp-bench-'));
  const started: ChildProcess[] = [];
  try {
    const appPort = await freePort();
    const app = server(
      'app (GET /api/exchange/credentials)',
      appPort,
      startApp({
        HOST: '127.0.0.1',
        PORT: String(appPort),
        DATA_DIR: dataDir,
        DATABASE_URL: url.toString(),
        JWT_SECRET,
        MARKET_LIVE_STREAM: 'false',
      }),
    );
    started.push(app.child);
    await waitForHttp(appPort, '/healthz');
    const account = { email: 'bench@example.com', password: 'bench-password-123' };
    await json(appPort, 'POST', '/api/auth/register', account);
    const { access_token: token } = await json<{ access_token: string }>(appPort, 'POST', '/api/auth/login', account);
    const headers = { authorization: `Bearer ${token}` };
    for (const [exchange, name] of [
      ['binance', 'main'],
      ['kraken', 'savings'],
      ['coinbase', 'spot'],
    ]) {
      await json(
        appPort,
        'POST',
        CREDENTIALS_PATH,
        {
          exchange_name: exchange,
          credential_name: name,
          api_key: `key-${name}-0123456789`,
          api_secret: `secret-${name}-0123456789`,
          api_passphrase: 'passphrase-1',
        },
        headers,
      );
    }
    const appBody = await (await waitForHttp(appPort, CREDENTIALS_PATH, headers)).text();

    const barePort = await freePort();
    const bare = server(
      'node:http + pg',
      barePort,
      startTs(['bench/db-bare-server.ts', String(barePort)], { DATABASE_URL: url.toString(), JWT_SECRET }),
    );
    started.push(bare.child);
    const bareBody = await (await waitForHttp(barePort, CREDENTIALS_PATH, headers)).text();
    if (bareBody !== appBody) throw new Error(`the two servers answer differently:\n${appBody}\n${bareBody}`);

    const { summaries } = await compare([app, bare], CREDENTIALS_PATH, headers);
    const result = { app: summaries[0]!, bare: summaries[1]! };
    const ratio = result.app.rps / result.bare.rps;
    console.log(
      [
        `## 2. GET ${CREDENTIALS_PATH} with a bearer token, ` +
          `PostgreSQL; ${Buffer.byteLength(appBody)}-byte answer (3 credentials)`,
        '',
        ...table([
          [app.name, result.app],
          [bare.name, result.bare],
        ]),
        '',
        `throughput app/bare: ${ratio.toFixed(2)} (target ` +
          `≥ ${CREDENTIALS_TARGET}) ${ratio >= CREDENTIALS_TARGET ? 'PASS' : 'FAIL'}`,
        `p99 app: ${result.app.p99.toFixed(2)} ms, bare: ${result.bare.p99.toFixed(2)} ms ` +
          `(app/bare ${(result.app.p99 / result.bare.p99).toFixed(2)}); server CPU per request ` +
          `bare/app: ${(result.bare.cpuPerRequestUs / result.app.cpuPerRequestUs).toFixed(2)}`,
        '',
      ].join('\n'),
    );
    return ratio >= CREDENTIALS_TARGET && result.app.failures === 0;
  } finally {
    for (const child of started) await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
    await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}

async function main(): Promise<void> {
  console.log(
    `${CONNECTIONS} keep-alive connections, ${ROUNDS} alternating rounds of ${ROUND_MS / 1000} s per server ` +
      `after ${WARMUP_MS / 1000} s warm-up; node ${process.version}\n`,
  );
  // BENCH_SCENARIOS=1,3 runs only those; all by default.
  const only = process.env.BENCH_SCENARIOS?.split(',').map((s) => s.trim());
  const runs = (n: string) => !only || only.includes(n);
  const ticker = runs('1') ? await tickerScenario() : true;
  const credentials = runs('2') ? await credentialsScenario() : undefined;
  const control = { startApp, stop, waitForHttp, json };
  const portfolio = runs('3') ? await portfolioScenario(control, JWT_SECRET) : undefined;
  const orders = runs('4') ? await ordersScenario(control, JWT_SECRET) : undefined;
  const alerts = runs('5') ? await alertsScenario(control, JWT_SECRET) : undefined;
  process.exitCode =
    ticker && credentials !== false && portfolio !== false && orders !== false && alerts !== false ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
