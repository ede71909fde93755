// `npm run bench:faults`: the real service (started as `npm start` starts it) on this machine's
// PostgreSQL and Redis, each behind a loopback TCP proxy (test/fakes/tcp-proxy.ts) that refuses,
// black-holes (a frozen server) or resets connections on command, with the Binance and CoinGecko
// fakes as market upstreams and a chat receiver that never answers. For every fault it drives a few
// routes for BENCH_FAULT_MS and prints the status codes seen, the slowest answer, and how long after
// the fault ended every route answered 200 again. Then SIGTERM: how long the exit took.
// Method and results: bench/README.md ("Faults").
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBinanceFake, type BinanceFake } from '../test/fakes/binance.ts';
import { startChatReceiver } from '../test/fakes/chat-webhook.ts';
import { startCoinGeckoFake } from '../test/fakes/coingecko.ts';
import { startTcpProxy, type TcpProxy } from '../test/fakes/tcp-proxy.ts';
import { freePort } from './ports.ts';
import { adminQuery, PG_URL } from './postgres.ts';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const FAULT_MS = Number(process.env.BENCH_FAULT_MS ?? 5_000);
const WORKERS = Number(process.env.BENCH_FAULT_WORKERS ?? 4);
const UPSTREAM_TIMEOUT_MS = 2_000;
const ADMIN = { email: 'faults@example.com', password: 'faults-password-1' };
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

interface Probe {
  name: string;
  send(): Promise<number>;
}

interface Measured {
  statuses: Map<number | string, number>;
  slowestMs: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function call(
  port: number,
  method: string,
  url: string,
  options: { headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<number> {
  return new Promise((resolve) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path: url,
        agent,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    // A bound of our own, far above every budget: an answer that never comes shows as "no answer".
    request.setTimeout(options.timeoutMs ?? 60_000, () => request.destroy(new Error('no answer')));
    request.on('error', (error) => resolve(error.message === 'no answer' ? -1 : -2));
    request.end(body);
  });
}

const label = (status: number | string) => (status === -1 ? 'no answer' : status === -2 ? 'reset' : String(status));

async function measure(probes: Probe[], durationMs: number): Promise<Map<string, Measured>> {
  const results = new Map(probes.map((probe) => [probe.name, { statuses: new Map(), slowestMs: 0 } as Measured]));
  const until = performance.now() + durationMs;
  await Promise.all(
    probes.flatMap((probe) =>
      // Logins one at a time: more than five at once on one account are throttled by design (decision 003).
      Array.from({ length: probe.name.startsWith('POST') ? 1 : WORKERS }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          const status = await probe.send();
          const ms = performance.now() - started;
          const result = results.get(probe.name)!;
          result.statuses.set(status, (result.statuses.get(status) ?? 0) + 1);
          result.slowestMs = Math.max(result.slowestMs, ms);
        }
      }),
    ),
  );
  return results;
}

async function recoveryMs(probes: Probe[]): Promise<number> {
  const started = performance.now();
  for (;;) {
    const statuses = await Promise.all(probes.map((probe) => probe.send()));
    if (statuses.every((status) => status === 200)) return performance.now() - started;
    if (performance.now() - started > 30_000) return Number.POSITIVE_INFINITY;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function startApp(env: Record<string, string>): ChildProcess {
  const script = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const [command, ...args] = script.split(/\s+/);
  if (command !== 'node') throw new Error(`npm start runs ${command}, not node`);
  return spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'error', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitReady(port: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await call(port, 'GET', '/readyz', { timeoutMs: 2_000 })) !== 200) {
    if (Date.now() > deadline) throw new Error('the app did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Fault {
  name: string;
  begin(): Promise<void> | void;
  end(): Promise<void> | void;
}

function faults(pgProxy: TcpProxy, redisProxy: TcpProxy, binance: BinanceFake): Fault[] {
  let cutting: NodeJS.Timeout | undefined;
  return [
    { name: 'none (baseline)', begin: () => {}, end: () => {} },
    {
      name: 'Redis frozen (black hole)',
      begin: () => redisProxy.mode('blackhole'),
      end: () => redisProxy.mode('pass'),
    },
    {
      name: 'Redis stopped (connections reset, then refused)',
      begin: async () => {
        redisProxy.reset();
        await redisProxy.mode('refuse');
      },
      end: () => redisProxy.mode('pass'),
    },
    {
      name: 'PostgreSQL stopped (connections reset, then refused)',
      begin: async () => {
        pgProxy.reset();
        await pgProxy.mode('refuse');
      },
      end: () => pgProxy.mode('pass'),
    },
    { name: 'PostgreSQL frozen (black hole)', begin: () => pgProxy.mode('blackhole'), end: () => pgProxy.mode('pass') },
    {
      name: 'PostgreSQL connections cut every 200 ms (open transactions included)',
      begin: () => {
        cutting = setInterval(() => pgProxy.reset(), 200);
      },
      end: () => clearInterval(cutting),
    },
    {
      name: 'Binance answering 503',
      begin: () => {
        binance.fail(503, { code: -1001, msg: 'Service unavailable' }, { times: 1_000_000, pathPrefix: '/api/v3' });
      },
      end: () => {
        (binance as unknown as { failures: unknown[] }).failures.length = 0;
      },
    },
    {
      name: 'Binance answering 429 Retry-After 2',
      begin: () => {
        binance.fail(
          429,
          { code: -1003, msg: 'Too many requests' },
          { times: 1_000_000, pathPrefix: '/api/v3', retryAfter: 2 },
        );
      },
      end: () => {
        (binance as unknown as { failures: unknown[] }).failures.length = 0;
      },
    },
    {
      name: 'Binance hanging (answers after 60 s)',
      begin: () => {
        binance.delay(60_000, { times: 1_000_000, pathPrefix: '/api/v3' });
      },
      end: () => {
        (binance as unknown as { delays: unknown[] }).delays.length = 0;
      },
    },
  ];
}

async function main(): Promise<void> {
  if (spawnSync('pg_isready', ['-d', PG_URL, '-q']).status !== 0) {
    console.log(`SKIPPED: no PostgreSQL answers at ${PG_URL} (set BENCH_DATABASE_URL).`);
    return;
  }
  const database = `bench_faults_${process.pid}`;
  await adminQuery(`CREATE DATABASE ${database}`);
  const dbUrl = new URL(PG_URL);
  dbUrl.pathname = `/${database}`;
  const redisUrl = new URL(REDIS_URL);
  const pgProxy = await startTcpProxy({ host: dbUrl.hostname, port: Number(dbUrl.port || 5432) });
  const redisProxy = await startTcpProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
  const binance = await startBinanceFake();
  const coingecko = await startCoinGeckoFake();
  const chat = await startChatReceiver({ flavor: 'slack' });
  const port = await freePort();
  const webhookSecret = 'faults-database-webhook-secret-0123';
  const app = startApp({
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tp-faults-')),
    DATABASE_URL: pgProxy.url(dbUrl.toString()),
    REDIS_URL: redisProxy.url(REDIS_URL),
    REDIS_KEY_PREFIX: `bench-faults-${process.pid}:`,
    JWT_SECRET: 'bench-jwt-secret-that-is-long-enough-0123456789',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    BINANCE_API_URL: binance.url,
    COINGECKO_API_URL: coingecko.url,
    MARKET_LIVE_STREAM: 'false',
    MARKET_UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
    CHAT_WEBHOOK_URL: `${chat.url}/hook`,
    CHAT_WEBHOOK_TIMEOUT_MS: '60000',
    DATABASE_WEBHOOK_SECRET: webhookSecret,
  });
  const exited = new Promise<{ code: number | null }>((resolve) => app.on('exit', (code) => resolve({ code })));
  // Interrupted: the service goes too (the database is left for the next run's clean-up by name).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.kill('SIGKILL');
      process.exit(130);
    });
  }
  try {
    await waitReady(port);
    const login = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const auth = { authorization: `Bearer ${token}` };
    const probes: Probe[] = [
      {
        name: 'GET /api/v1/market/prices',
        send: () => call(port, 'GET', '/api/v1/market/prices?symbols=BTCUSDT,ETHUSDT'),
      },
      { name: 'GET /api/v1/market/ticker', send: () => call(port, 'GET', '/api/v1/market/ticker?limit=5') },
      { name: 'GET /api/auth/me', send: () => call(port, 'GET', '/api/auth/me', { headers: auth }) },
      { name: 'POST /api/auth/login', send: () => call(port, 'POST', '/api/auth/login', { body: ADMIN }) },
    ];
    console.log(
      `# Faults (each held ${FAULT_MS / 1000} s; ${WORKERS} concurrent clients per route, logins one at a time)\n`,
    );
    console.log(
      `MARKET_UPSTREAM_TIMEOUT_MS=${UPSTREAM_TIMEOUT_MS}, REDIS_COMMAND_TIMEOUT_MS=500, ` +
        'DATABASE_QUERY_TIMEOUT_MS=5000, DATABASE_CONNECT_TIMEOUT_MS=3000\n',
    );
    console.log('| fault | route | status codes seen | slowest answer | every route 200 again after the fault ended |');
    console.log('|---|---|---|---|---|');
    for (const fault of faults(pgProxy, redisProxy, binance)) {
      await fault.begin();
      const results = await measure(probes, FAULT_MS);
      await fault.end();
      const recovered = await recoveryMs(probes);
      let first = true;
      for (const [route, { statuses, slowestMs }] of results) {
        const seen = [...statuses.entries()]
          .sort((a, b) => Number(a[0]) - Number(b[0]))
          .map(([status, count]) => `${label(status)} ×${count}`)
          .join(', ');
        const recovery = first ? (Number.isFinite(recovered) ? `${Math.round(recovered)} ms` : 'not within 30 s') : '';
        console.log(`| ${first ? fault.name : ''} | ${route} | ${seen} | ${Math.round(slowestMs)} ms | ${recovery} |`);
        first = false;
      }
      // The market cache entries age out between faults, so each fault starts from the same state.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }

    // SIGTERM while a chat post hangs and keep-alive connections are open.
    chat.respondNext('hang');
    const queued = await fetch(`http://127.0.0.1:${port}/api/webhooks/platforms/database`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${webhookSecret}` },
      body: JSON.stringify({
        type: 'INSERT',
        table: 'users',
        schema: 'public',
        record: { id: 'bench', email: 'bench@example.com' },
      }),
    });
    if (queued.status >= 300) throw new Error(`webhook: ${queued.status}`);
    const deadline = Date.now() + 10_000;
    while (chat.received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all(Array.from({ length: 20 }, () => call(port, 'GET', '/healthz')));
    const signalled = performance.now();
    app.kill('SIGTERM');
    const after = await Promise.all(
      Array.from({ length: 20 }, () => call(port, 'GET', '/healthz', { timeoutMs: 15_000 })),
    );
    const { code } = await exited;
    const counts = new Map<number, number>();
    for (const status of after) counts.set(status, (counts.get(status) ?? 0) + 1);
    console.log(`\n| SIGTERM with a chat post hanging and 20 idle keep-alive connections | |\n|---|---|`);
    console.log(
      '| requests sent on those connections after the signal ' +
        `| ${[...counts.entries()].map(([status, count]) => `${label(status)} ×${count}`).join(', ')} |`,
    );
    console.log(`| exit | code ${code} after ${Math.round(performance.now() - signalled)} ms |`);
  } finally {
    if (app.exitCode === null && app.signalCode === null) app.kill('SIGKILL');
    agent.destroy();
    await Promise.all([pgProxy.close(), redisProxy.close(), binance.close(), coingecko.close(), chat.close()]);
    await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
