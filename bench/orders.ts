// Scenario 4 of `npm run bench` (issue 39 part 8, issue 42 part 5): POST /api/orders from 50 users at
// once, each a closed loop (its next order as soon as the last is answered), the app started as
// `npm start` starts it on PostgreSQL (a database of its own), the Binance fake with its order
// endpoints as the only venue. Every user is made through the API as a trader is: two-factor on,
// signed in with it, a `tpk_` token with trade:write and a Binance credential on the fake.
//   (a) paper market orders: p99 of the round trip ≤ 20 ms;
//   (b) live market orders: p99 of our overhead ≤ 10 ms, the overhead of an order being its round
//       trip minus the time the fake spent answering that user's venue calls made within it.
// Buys and sells alternate, so balances never run out. Limits are raised so nothing is throttled:
// the risk limits, the venue budget's shares, the fake's weight limit and ccxt's own spacing.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBinanceFake, type FakeRequest } from '../test/fakes/binance.ts';
import { withOrders } from '../test/fakes/binance-orders.ts';
import { decodeBase32, referenceTotp } from '../test/helpers/totp-reference.ts';
import { percentile } from './load.ts';
import type { AppControl } from './portfolio.ts';
import { freePort } from './ports.ts';
import { adminQuery, PG_URL } from './postgres.ts';

const USERS = Number(process.env.BENCH_ORDERS_USERS ?? 50);
const WARMUP_MS = Number(process.env.BENCH_ORDERS_WARMUP_MS ?? 3_000);
const MEASURE_MS = Number(process.env.BENCH_ORDERS_MS ?? 15_000);
const PAPER_P99_TARGET_MS = 20;
const LIVE_OVERHEAD_P99_TARGET_MS = 10;

interface User {
  email: string;
  token: string;
  apiKey: string;
}

interface Sample {
  user: User;
  sentAt: number;
  answeredAt: number;
  status: number;
}

function call(port: number, agent: Agent, method: string, url: string, body: unknown, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: url,
        agent,
        headers: { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** CPU time (user + system) a process has used so far, in ms; Linux /proc. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const codeAt = (secret: string, at: number) =>
  referenceTotp(Buffer.from(decodeBase32(secret)), Math.floor(at / 30_000) * 30, 6);

/** A trader made through the API: two-factor on, signed in with it, a trade:write token, a credential. */
async function makeUser(app: AppControl, port: number, n: number, apiKey: string, apiSecret: string): Promise<User> {
  const account = { email: `orders-${n}@example.com`, password: 'bench-password-123' };
  await app.json(port, 'POST', '/api/auth/register', account);
  const first = await app.json<{ access_token: string }>(port, 'POST', '/api/auth/login', account);
  const session = { authorization: `Bearer ${first.access_token}` };
  const { secret } = await app.json<{ secret: string }>(
    port,
    'POST',
    '/api/auth/2fa/setup',
    { password: account.password },
    session,
  );
  const now = Date.now();
  await app.json(port, 'POST', '/api/auth/2fa/enable', { code: codeAt(secret, now) }, session);
  const login = await app.json<{ mfa_token: string }>(port, 'POST', '/api/auth/login', account);
  // The next time step's code: one step either side is accepted, and the step just used is spent.
  const verified = await app.json<{ access_token: string }>(port, 'POST', '/api/auth/2fa/verify', {
    mfa_token: login.mfa_token,
    code: codeAt(secret, now + 30_000),
  });
  const fresh = { authorization: `Bearer ${verified.access_token}` };
  const made = await app.json<{ token: string }>(
    port,
    'POST',
    '/api/auth/tokens',
    { name: 'bench', scopes: ['trade:read', 'trade:write'] },
    fresh,
  );
  if (!made.token.startsWith('tpk_')) throw new Error('the API token is not a tpk_ token');
  await app.json(
    port,
    'POST',
    '/api/exchange/credentials',
    { exchange_name: 'binance', api_key: apiKey, api_secret: apiSecret },
    fresh,
  );
  return { email: account.email, token: made.token, apiKey };
}

/** Every user a closed loop of market orders for `ms`; samples recorded when `record`. */
async function closedLoop(port: number, users: User[], mode: 'paper' | 'live', ms: number): Promise<Sample[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: users.length });
  const samples: Sample[] = [];
  const deadline = performance.now() + ms;
  await Promise.all(
    users.map(async (user, i) => {
      let buy = i % 2 === 0;
      while (performance.now() < deadline) {
        const sentAt = performance.now();
        const answer = await call(
          port,
          agent,
          'POST',
          '/api/orders',
          {
            exchange: 'binance',
            symbol: 'BTC/USDT',
            side: buy ? 'buy' : 'sell',
            type: 'market',
            amount: '0.001',
            mode,
          },
          { authorization: `Bearer ${user.token}` },
        );
        samples.push({ user, sentAt, answeredAt: performance.now(), status: answer.status });
        if (answer.status !== 201 && samples.filter((s) => s.status !== 201).length === 1)
          console.error(`first refused ${mode} order: ${answer.status} ${answer.body}`);
        buy = !buy;
      }
    }),
  );
  agent.destroy();
  return samples;
}

const stats = (values: number[]) => {
  const sorted = Float64Array.from(values).sort();
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN };
};

/** Answers whether both targets were met, or undefined when skipped (no PostgreSQL). */
export async function ordersScenario(app: AppControl, jwtSecret: string): Promise<boolean | undefined> {
  if (spawnSync('pg_isready', ['-d', PG_URL, '-q']).status !== 0) {
    console.log(`## 4. POST /api/orders\n\nSKIPPED: no PostgreSQL answers at ${PG_URL}; this scenario did not run.\n`);
    return undefined;
  }
  const database = `bench_orders_${process.pid}`;
  await adminQuery(`CREATE DATABASE ${database}`);
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tp-bench-'));
  // A weight limit no run reaches: the app reads it from exchangeInfo and sizes its budget by it.
  const binance = await startBinanceFake({ weightLimit: 100_000_000 });
  withOrders(binance);
  let child: ChildProcess | undefined;
  try {
    const port = await freePort();
    child = app.startApp({
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      DATABASE_URL: url.toString(),
      JWT_SECRET: jwtSecret,
      MARKET_LIVE_STREAM: 'false',
      BINANCE_API_URL: binance.url,
      LIVE_TRADING: 'true',
      SIGNUP_LIMIT_PER_HOUR: '100000',
      TRADING_MAX_ORDERS_PER_MINUTE: 'none',
      TRADING_MAX_OPEN_ORDERS: 'none',
      TRADING_MAX_ORDER_NOTIONAL: 'none',
      VENUE_WEIGHT_SHARE_PERCENT: '100',
      VENUE_USER_SHARE_PERCENT: '100',
      EXCHANGE_RATE_LIMIT: 'false',
      PAPER_START_BALANCES: '{"USDT": "100000000", "BTC": "1000"}',
      ...(process.env.BENCH_ORDERS_CPU_PROF
        ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_ORDERS_CPU_PROF}` }
        : {}),
    });
    await app.waitForHttp(port, '/healthz');
    const users: User[] = [];
    for (let n = 0; n < USERS; n++) {
      const account = binance.addAccount({
        apiKey: `key${randomBytes(12).toString('hex')}`,
        secret: `secret${randomBytes(16).toString('hex')}`,
        balances: [
          { asset: 'USDT', free: '100000000', locked: '0' },
          { asset: 'BTC', free: '1000', locked: '0' },
        ],
        trades: {},
      });
      users.push(await makeUser(app, port, n, account.apiKey, account.secret));
    }

    const pid = child.pid!;
    await closedLoop(port, users, 'paper', WARMUP_MS);
    let cpuFrom = cpuMs(pid);
    const paper = await closedLoop(port, users, 'paper', MEASURE_MS);
    const paperCpu = (cpuMs(pid) - cpuFrom) / paper.length;
    await closedLoop(port, users, 'live', WARMUP_MS);
    const liveFrom = binance.requests.length;
    cpuFrom = cpuMs(pid);
    const live = await closedLoop(port, users, 'live', MEASURE_MS);
    const liveCpu = (cpuMs(pid) - cpuFrom) / live.length;
    const venueCalls = binance.requests.slice(liveFrom);

    // The fake's time per order: the user's venue calls that began and ended within the order's round trip.
    const byKey = new Map<string, FakeRequest[]>();
    for (const r of venueCalls) {
      const key = String(r.headers['x-mbx-apikey'] ?? '');
      byKey.set(key, [...(byKey.get(key) ?? []), r]);
    }
    let attributed = 0;
    const overheads: number[] = [];
    const fakeTimes: number[] = [];
    for (const s of live) {
      const within = (byKey.get(s.user.apiKey) ?? []).filter(
        (r) => r.receivedAt >= s.sentAt && r.serviceMs !== undefined && r.receivedAt + r.serviceMs <= s.answeredAt,
      );
      attributed += within.length;
      const fakeMs = within.reduce((sum, r) => sum + r.serviceMs!, 0);
      fakeTimes.push(fakeMs);
      overheads.push(s.answeredAt - s.sentAt - fakeMs);
    }
    const paths = new Map<string, number>();
    for (const r of venueCalls) paths.set(`${r.method} ${r.path}`, (paths.get(`${r.method} ${r.path}`) ?? 0) + 1);

    const paperRt = stats(paper.map((s) => s.answeredAt - s.sentAt));
    const liveRt = stats(live.map((s) => s.answeredAt - s.sentAt));
    const fake = stats(fakeTimes);
    const overhead = stats(overheads);
    const failed = (samples: Sample[]) => samples.filter((s) => s.status !== 201).length;
    const rate = (samples: Sample[]) => ((samples.length / MEASURE_MS) * 1000).toFixed(0);
    const paperOk = paperRt.p99 <= PAPER_P99_TARGET_MS && failed(paper) === 0;
    const liveOk = overhead.p99 <= LIVE_OVERHEAD_P99_TARGET_MS && failed(live) === 0;
    const f = (ms: number) => ms.toFixed(2);
    console.log(
      [
        `## 4. POST /api/orders, market orders, ${USERS} concurrent users (closed loops), PostgreSQL`,
        '',
        '| orders | placed | orders/s | non-201 | app CPU ms/order | p50 ms | p99 ms | max ms |',
        '|---|---|---|---|---|---|---|---|',
        `| paper, round trip | ${paper.length} | ${rate(paper)} | ${failed(paper)} | ${f(paperCpu)} ` +
          `| ${f(paperRt.p50)} | ${f(paperRt.p99)} | ${f(paperRt.max)} |`,
        `| live, round trip | ${live.length} | ${rate(live)} | ${failed(live)} | ${f(liveCpu)} ` +
          `| ${f(liveRt.p50)} | ${f(liveRt.p99)} | ${f(liveRt.max)} |`,
        `| live, the fake's answer time | | | | | ${f(fake.p50)} | ${f(fake.p99)} | ${f(fake.max)} |`,
        `| live, overhead (round trip − fake) | | | | | ${f(overhead.p50)} | ${f(overhead.p99)} | ${f(overhead.max)} |`,
        '',
        `venue calls while measuring live: ${[...paths].map(([p, n]) => `${p} ${n}`).join(', ')}; ` +
          `${attributed} of them attributed to an order`,
        `paper p99 ${f(paperRt.p99)} ms (target ≤ ${PAPER_P99_TARGET_MS} ms) ${paperOk ? 'PASS' : 'FAIL'}`,
        `live overhead p99 ${f(overhead.p99)} ms (target ≤ ${LIVE_OVERHEAD_P99_TARGET_MS} ms) ${liveOk ? 'PASS' : 'FAIL'}`,
        '',
      ].join('\n'),
    );
    return paperOk && liveOk;
  } finally {
    if (child) await app.stop(child);
    await binance.close();
    rmSync(dataDir, { recursive: true, force: true });
    await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}
