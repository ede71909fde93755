// `npm run bench`: requests per second and p99 of a cached GET /api/v1/market/ticker?limit=20 served
// by the real app (src/main.ts, listening on loopback, Binance and CoinGecko fakes as upstreams)
// against a bare node:http server answering the same bytes, 50 keep-alive connections each; and
// the upstream calls per 1,000 requests. Both servers run side by side and are measured in
// alternating rounds (app, bare, bare, app, ...) so that load from elsewhere on the machine falls on
// both alike. Method and results: bench/README.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBinanceFake } from '../test/fakes/binance.ts';
import { startCoinGeckoFake } from '../test/fakes/coingecko.ts';
import { percentile, runLoad, type LoadResult } from './load.ts';

const PATH = process.env.BENCH_PATH ?? '/api/v1/market/ticker?limit=20';
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 2_500);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 3_000);
/** Bound on requests per round, besides its time. */
const MAX_REQUESTS = Number(process.env.BENCH_MAX_REQUESTS ?? 500_000);
/** The ticker cache TTL (src/modules/market/market-data.ts POLICIES.tickers). */
const CACHE_WINDOW_MS = 5_000;
const TARGET_RATIO = 0.6;

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

interface Server {
  name: string;
  port: number;
  child: ChildProcess;
  rounds: LoadResult[];
  cpuMs: number;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function start(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function waitForHttp(port: number, url: string, timeoutMs = 180_000): Promise<Response> {
  const started = Date.now();
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}${url}`);
      if (response.ok) return response;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs) throw new Error(`nothing answered ${url} on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** CPU time (user + system) a process has used so far, in ms; Linux /proc. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticksPerSecond = 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

async function round(server: Server, durationMs: number, record: boolean): Promise<void> {
  const cpuBefore = cpuMs(server.child.pid!);
  const result = await runLoad({ port: server.port, path: PATH, connections: CONNECTIONS, durationMs, maxRequests: MAX_REQUESTS });
  if (!record) return;
  server.cpuMs += cpuMs(server.child.pid!) - cpuBefore;
  server.rounds.push(result);
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

async function main(): Promise<void> {
  const binance = await startBinanceFake();
  const coingecko = await startCoinGeckoFake();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tp-bench-'));
  const upstreamCalls = () => binance.requests.length + coingecko.requests.length;
  const servers: Server[] = [];
  try {
    // The real app, as `npm start` runs it, against the fakes; request logs off (LOG_LEVEL=warn) as
    // the bare server writes none either.
    const appPort = await freePort();
    const app: Server = {
      name: 'app (cached ticker)',
      port: appPort,
      rounds: [],
      cpuMs: 0,
      child: start(['src/main.ts'], {
        HOST: '127.0.0.1',
        PORT: String(appPort),
        DATA_DIR: dataDir,
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
        BINANCE_API_URL: binance.url,
        COINGECKO_API_URL: coingecko.url,
        MARKET_LIVE_STREAM: 'false',
      }),
    };
    servers.push(app);
    await waitForHttp(appPort, '/healthz');
    const first = await waitForHttp(appPort, PATH);
    const body = Buffer.from(await first.arrayBuffer());
    const contentType = first.headers.get('content-type') ?? 'application/json; charset=utf-8';

    const bodyFile = path.join(dataDir, 'ticker.json');
    writeFileSync(bodyFile, body);
    const barePort = await freePort();
    const bare: Server = { name: 'bare node:http', port: barePort, rounds: [], cpuMs: 0, child: start(['bench/bare-server.ts', String(barePort), bodyFile, contentType], {}) };
    servers.push(bare);
    await waitForHttp(barePort, PATH);

    await round(app, WARMUP_MS, false);
    await round(bare, WARMUP_MS, false);
    const callsBefore = upstreamCalls();
    const measuringFrom = performance.now();
    for (let i = 0; i < ROUNDS; i++) {
      const order = i % 2 === 0 ? [app, bare] : [bare, app];
      for (const server of order) await round(server, ROUND_MS, true);
    }
    const spanMs = performance.now() - measuringFrom;
    const calls = upstreamCalls() - callsBefore;

    const a = summary(app);
    const b = summary(bare);
    const ratio = a.rps / b.rps;
    const windows = Math.floor(spanMs / CACHE_WINDOW_MS) + 1;
    const line = (name: string, s: ReturnType<typeof summary>) =>
      `| ${name} | ${s.requests} | ${Math.round(s.rps)} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${s.cpuPerRequestUs.toFixed(1)} | ${s.failures} |`;
    console.log(
      [
        `GET ${PATH}: ${CONNECTIONS} keep-alive connections, ${ROUNDS} alternating rounds of ${ROUND_MS / 1000} s per server after ${WARMUP_MS / 1000} s warm-up; node ${process.version}; ${body.length}-byte answer`,
        '',
        '| server | requests | requests/s | p50 ms | p99 ms | server CPU µs/request | errors |',
        '|---|---|---|---|---|---|---|',
        line(app.name, a),
        line(bare.name, b),
        '',
        `throughput app/bare: ${ratio.toFixed(2)} (target ≥ ${TARGET_RATIO}) ${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'}`,
        `p99 app/bare: ${(a.p99 / b.p99).toFixed(2)}; server CPU per request bare/app: ${(b.cpuPerRequestUs / a.cpuPerRequestUs).toFixed(2)}`,
        `upstream calls while measuring: ${calls} over ${(spanMs / 1000).toFixed(1)} s = ${windows} cache windows of ${CACHE_WINDOW_MS / 1000} s (target ≤ 1 per window) ${calls <= windows ? 'PASS' : 'FAIL'}`,
        `upstream calls per 1,000 app requests: ${((calls / a.requests) * 1000).toFixed(4)}`,
      ].join('\n'),
    );
    process.exitCode = ratio < TARGET_RATIO || calls > windows || a.failures > 0 ? 1 : 0;
  } finally {
    for (const server of servers) await stop(server.child);
    await binance.close();
    await coingecko.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
