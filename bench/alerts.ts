// Scenario 5 of `npm run bench`: TradingView alert acknowledgement. The app as `npm start` runs it (on
// this machine's PostgreSQL, a database of its own; the Binance fake as the market), one paper hook,
// and alerts sent as TradingView sends them (test/fakes/tradingview.ts) at a fixed rate, open loop:
// each alert leaves on its schedule whether or not earlier ones were answered, as TradingView's do.
// Every alert is new (its own id), so each goes all the way through the order step. Measured: the time
// from sending to the acknowledgement. Target: p99 ≤ 300 ms at 50 alerts/s (TradingView gives up at 3 s).
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBinanceFake } from '../test/fakes/binance.ts';
import { sendAlert, timenow } from '../test/fakes/tradingview.ts';
import { percentile } from './load.ts';
import { cpuMs } from './orders.ts';
import { freePort } from './ports.ts';
import { adminQuery, PG_URL } from './postgres.ts';
import type { AppControl } from './portfolio.ts';

const RATE = Number(process.env.BENCH_ALERTS_PER_SECOND ?? 50);
const SECONDS = Number(process.env.BENCH_ALERTS_SECONDS ?? 10);
const P99_TARGET_MS = 300;

/** Answers whether the target was met, or undefined when skipped (no PostgreSQL). */
export async function alertsScenario(app: AppControl, jwtSecret: string): Promise<boolean | undefined> {
  const title = `## 5. POST /api/signals/tradingview/{hook_id}, ${RATE} alerts/s for ${SECONDS} s, PostgreSQL`;
  if (spawnSync('pg_isready', ['-d', PG_URL, '-q']).status !== 0) {
    console.log(`${title}\n\nSKIPPED: no PostgreSQL answers at ${PG_URL} (set BENCH_DATABASE_URL).\n`);
    return undefined;
  }
  const database = `bench_alerts_${process.pid}`;
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
      // One hook takes the whole rate; the risk limits would refuse orders past 60 a minute.
      SIGNAL_HOOK_LIMIT_PER_MINUTE: '100000',
      SIGNAL_ADDRESS_LIMIT_PER_MINUTE: '100000',
      TRADING_MAX_ORDERS_PER_MINUTE: 'none',
      TRADING_MAX_OPEN_ORDERS: 'none',
      TRADING_MAX_ORDER_NOTIONAL: 'none',
    });
    await app.waitForHttp(port, '/healthz');
    const account = { email: 'signals@example.com', password: 'bench-password-123' };
    await app.json(port, 'POST', '/api/auth/register', account);
    const { access_token: token } = await app.json<{ access_token: string }>(port, 'POST', '/api/auth/login', account);
    const hook = await app.json<{ id: string; secret: string }>(
      port,
      'POST',
      '/api/signals/hooks',
      { name: 'bench' },
      { authorization: `Bearer ${token}` },
    );
    const target = `http://127.0.0.1:${port}/api/signals/tradingview/${hook.id}`;
    const message = (i: number) =>
      JSON.stringify({
        secret: hook.secret,
        symbol: 'BTCUSDT',
        action: i % 2 === 0 ? 'buy' : 'sell',
        amount: '0.0001',
        id: `bench-${i}`,
        time: timenow(new Date()),
      });
    // Warm-up: a second of alerts, not measured.
    await Promise.all(Array.from({ length: RATE }, (_, i) => sendAlert(target, message(-1 - i))));

    const total = RATE * SECONDS;
    const cpuFrom = cpuMs(child.pid!);
    const started = performance.now();
    const deliveries = await Promise.all(
      Array.from({ length: total }, async (_, i) => {
        const due = started + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        return sendAlert(target, message(i));
      }),
    );
    // The app's CPU per alert: the figure that varies least when the machine is busy.
    const cpuPerAlert = (cpuMs(child.pid!) - cpuFrom) / total;
    const statuses: Record<string, number> = {};
    for (const d of deliveries)
      statuses[String(d.status ?? 'abandoned')] = (statuses[String(d.status ?? 'abandoned')] ?? 0) + 1;
    const latencies = Float64Array.from(deliveries.map((d) => d.elapsedMs)).sort();
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const accepted = statuses['202'] ?? 0;
    const ok = p99 <= P99_TARGET_MS && accepted === total;
    console.log(
      [
        title,
        '',
        '| alerts | 202 | other answers | app CPU ms/alert | p50 ms | p99 ms | max ms |',
        '|---|---|---|---|---|---|---|',
        `| ${total} | ${accepted} | ${JSON.stringify(Object.fromEntries(Object.entries(statuses).filter(([s]) => s !== '202')))} ` +
          `| ${cpuPerAlert.toFixed(2)} | ${p50.toFixed(1)} | ${p99.toFixed(1)} | ${latencies.at(-1)!.toFixed(1)} |`,
        '',
        `p99 ${p99.toFixed(1)} ms (target ≤ ${P99_TARGET_MS} ms, every alert 202) ${ok ? 'PASS' : 'FAIL'}`,
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
