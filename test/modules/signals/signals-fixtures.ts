// Set-up shared by the tests of TradingView alerts: an app over the Binance and CoinGecko fakes whose first
// paper order has loaded the venue's markets and book (these tests are about the alert, not that), and the
// calls they make of hooks and alerts.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { startBinanceFake } from '../../fakes/binance.ts';
import { startCoinGeckoFake } from '../../fakes/coingecko.ts';
import { alertRequest } from '../../fakes/tradingview.ts';
import { shiftedClock } from '../../helpers/shifted-clock.ts';
import { buildTestApp, newClientAddress, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';

export interface MadeHook {
  id: string;
  secret: string;
}

/** A hook as `GET /api/signals/hooks` lists it: its counters and last error. */
export interface ListedHook {
  id: string;
  alerts_accepted: number;
  alerts_refused: number;
  last_error: string | null;
}

/**
 * For the enclosing describe: the app on a clock that runs on (shifted as tests need), `alice` signed in
 * and her first paper order made, started in its before hook and stopped in its after hook. `t` and `alice`
 * stay empty until that hook fills them in, so the describe may take them at once, and its tests use them.
 */
export function useSignalsApp(env: Record<string, string> = {}) {
  const clock = shiftedClock();
  const t = {} as TestApp;
  const alice = {} as TestUser;
  const fakes: { close(): Promise<void> }[] = [];
  before(async () => {
    const binance = await startBinanceFake();
    const coingecko = await startCoinGeckoFake();
    fakes.push(binance, coingecko);
    Object.assign(
      t,
      await buildTestApp({
        clock,
        env: {
          BINANCE_API_URL: binance.url,
          COINGECKO_API_URL: coingecko.url,
          EXCHANGE_RATE_LIMIT: 'false',
          MARKET_UPSTREAM_TIMEOUT_MS: '10000',
          TRADING_MAX_ORDERS_PER_MINUTE: 'none',
          ...env,
        },
      }),
    );
    Object.assign(alice, await signIn(t.app, t.database));
    await waitFor(
      async () =>
        (
          await t.app.inject({
            method: 'POST',
            url: '/api/orders',
            headers: alice.headers,
            payload: { exchange: 'binance', symbol: 'BTC/USDT', side: 'buy', type: 'market', amount: '0.001' },
          })
        ).statusCode === 201,
      'a first paper order',
      60_000,
      250,
    );
  });
  after(async () => {
    await t.close();
    for (const fake of fakes) await fake.close();
  });
  return { clock, t, alice };
}

/** Makes a hook (201 asserted): its id and its secret, shown this once. */
export async function makeHook(
  app: FastifyInstance,
  headers: Record<string, string>,
  payload: object = { name: 'trend' },
): Promise<MadeHook> {
  const response = await app.inject({ method: 'POST', url: '/api/signals/hooks', headers, payload });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<MadeHook>();
}

/** The hook as its owner's listing shows it. */
export async function listedHook(
  app: FastifyInstance,
  headers: Record<string, string>,
  hookId: string,
): Promise<ListedHook> {
  const listed = await app.inject({ method: 'GET', url: '/api/signals/hooks', headers });
  const hook = listed.json<{ hooks: ListedHook[] }>().hooks.find((h) => h.id === hookId);
  assert.ok(hook, `hook ${hookId} listed`);
  return hook;
}

/** Posts an alert's body to the hook as TradingView does, from a new address unless one is given. */
export function postAlert(app: FastifyInstance, hookId: string, message: string, remoteAddress = newClientAddress()) {
  return app.inject({
    method: 'POST',
    url: `/api/signals/tradingview/${hookId}`,
    ...alertRequest(message),
    remoteAddress,
  });
}
