// Scenario 3 of `npm run bench`: GET /api/portfolio/summary for a user with 100,000 stored trades
// (PostgreSQL, a database of its own), the app started as `npm start` starts it, the Binance fake
// as the market's price source. The trades are written straight into the database (a sync of 100,000
// would only measure the fake); the first summary replays them and stores the ledger
// (docs/decisions/156), and the measured ones apply what is new since: nothing. Target p99 ≤ 100 ms.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startBinanceFake } from '../test/fakes/binance.ts';
import { percentile, runLoad } from './load.ts';
import { freePort } from './ports.ts';
import { adminQuery, PG_URL } from './postgres.ts';

export const SUMMARY_PATH = '/api/portfolio/summary?quote=USDT';
const TRADES = Number(process.env.BENCH_PORTFOLIO_TRADES ?? 100_000);
const P99_TARGET_MS = 100;

export interface AppControl {
  startApp(env: Record<string, string>): ChildProcess;
  stop(child: ChildProcess): Promise<void>;
  waitForHttp(port: number, url: string, headers?: Record<string, string>, timeoutMs?: number): Promise<Response>;
  json<T>(port: number, method: string, url: string, body: unknown, headers?: Record<string, string>): Promise<T>;
}

/**
 * 100,000 fills over three pairs, oldest first, an hour apart: buys of 1.1 units and sells of 1 unit
 * alternating per pair (so about a tenth of each lot stays open), fees in USDT.
 */
async function seed(databaseUrl: string, email: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [email]);
    const userId = rows[0]!.id;
    await client.query(
      `INSERT INTO exchange_trades (user_id, exchange, exchange_trade_id, symbol, side, price, amount, total, fee,
                                    fee_currency, trade_timestamp, created_at)
       SELECT $1, 'binance', i::text, s.symbol,
              CASE WHEN (i / 3) % 2 = 0 THEN 'buy' ELSE 'sell' END,
              s.price, a.amount, s.price * a.amount, s.price * a.amount * 0.001, 'USDT',
              now() - interval '1 hour' * ($2 - i),
              -- Stored by syncs over time, not all in the last minutes.
              now() - interval '1 hour' - interval '1 millisecond' * ($2 - i)
       FROM generate_series(1, $2) AS i
       CROSS JOIN LATERAL (SELECT (ARRAY['BTC/USDT', 'ETH/USDT', 'SOL/USDT'])[i % 3 + 1] AS symbol,
                                  (ARRAY[60000, 3000, 150])[i % 3 + 1]::numeric + (i % 97) AS price) s
       CROSS JOIN LATERAL (SELECT CASE WHEN (i / 3) % 2 = 0 THEN 0.0011 ELSE 0.001 END::numeric AS amount) a`,
      [userId, TRADES],
    );
    const sync = await client.query<{ id: string }>(
      'INSERT INTO exchange_balance_syncs (user_id, exchange, currencies_synced, synced_at) ' +
        "VALUES ($1, 'binance', 4, now()) RETURNING id",
      [userId],
    );
    await client.query(
      `INSERT INTO exchange_balances (sync_id, user_id, exchange, currency, free, locked, total, sync_timestamp)
       SELECT $1, $2, 'binance', c, t, 0, t, now()
       FROM (VALUES ('BTC', 1.5), ('ETH', 1.5), ('SOL', 1.5), ('USDT', 10000)) AS v(c, t)`,
      [sync.rows[0]!.id, userId],
    );
  } finally {
    await client.end();
  }
}

/** Answers whether the target was met, or undefined when skipped (no PostgreSQL). */
export async function portfolioScenario(app: AppControl, jwtSecret: string): Promise<boolean | undefined> {
  if (spawnSync('pg_isready', ['-d', PG_URL, '-q']).status !== 0) {
    console.log(
      `## 3. GET ${SUMMARY_PATH}\n\nSKIPPED: no PostgreSQL answers at ${PG_URL} (set ` +
        'BENCH_DATABASE_URL); this scenario did not run.\n',
    );
    return undefined;
  }
  const database = `bench_portfolio_${process.pid}`;
  await adminQuery(`CREATE DATABASE ${database}`);
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tp-bench-'));
  const binance = await startBinanceFake();
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
      // BENCH_PORTFOLIO_CPU_PROF=dir: the app runs with --cpu-prof and writes its profile there when it stops.
      ...(process.env.BENCH_PORTFOLIO_CPU_PROF
        ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_PORTFOLIO_CPU_PROF}` }
        : {}),
    });
    await app.waitForHttp(port, '/healthz');
    const account = { email: 'portfolio@example.com', password: 'bench-password-123' };
    await app.json(port, 'POST', '/api/auth/register', account);
    const { access_token: token } = await app.json<{ access_token: string }>(port, 'POST', '/api/auth/login', account);
    const headers = { authorization: `Bearer ${token}` };
    const seeding = performance.now();
    await seed(url.toString(), account.email);
    const seedMs = performance.now() - seeding;
    const replaying = performance.now();
    const first = await app.waitForHttp(port, SUMMARY_PATH, headers);
    const replayMs = performance.now() - replaying;
    const body = (await first.json()) as { realized_pnl: number; assets: unknown[] };

    const connections = Number(process.env.BENCH_PORTFOLIO_CONNECTIONS ?? 4);
    await runLoad({ port, path: SUMMARY_PATH, connections, durationMs: 2_000, maxRequests: 100_000, headers });
    const result = await runLoad({
      port,
      path: SUMMARY_PATH,
      connections,
      durationMs: 10_000,
      maxRequests: 100_000,
      headers,
    });
    const p50 = percentile(result.latenciesUs, 50) / 1000;
    const p99 = percentile(result.latenciesUs, 99) / 1000;
    const ok = p99 <= P99_TARGET_MS && result.errors === 0 && result.non200 === 0;
    console.log(
      [
        `## 3. GET ${SUMMARY_PATH}, ${TRADES.toLocaleString('en')} stored trades, PostgreSQL`,
        '',
        `seeded in ${(seedMs / 1000).toFixed(1)} s; first summary (replay of every trade, ledger ` +
          `stored): ${(replayMs / 1000).toFixed(2)} s; ` +
          `realized ${body.realized_pnl}, ${body.assets.length} assets`,
        '',
        '| connections | requests | requests/s | p50 ms | p99 ms | non-200 |',
        '|---|---|---|---|---|---|',
        `| ${connections} | ${result.requests} | ${Math.round((result.requests / result.elapsedMs) * 1000)} ` +
          `| ${p50.toFixed(2)} | ${p99.toFixed(2)} | ${result.non200 + result.errors} |`,
        '',
        `p99 ${p99.toFixed(2)} ms (target ≤ ${P99_TARGET_MS} ms) ${ok ? 'PASS' : 'FAIL'}`,
        '',
      ].join('\n'),
    );
    return ok;
  } finally {
    if (child) await app.stop(child);
    await binance.close();
    rmSync(dataDir, { recursive: true, force: true });
    await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}
