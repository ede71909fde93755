// Two instances on one Redis, a cold cache and a failing venue: the instance waiting for the other's
// load learns of its failure at once (decision 103), answers within MARKET_UPSTREAM_TIMEOUT_MS + 1 s,
// and the venue sees one request for both.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { startBinanceFake, type BinanceFake } from '../../fakes/binance.ts';
import { startCoinGeckoFake, type CoinGeckoFake } from '../../fakes/coingecko.ts';
import { closedPort } from '../../helpers/ports.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import { withoutRedis } from '../../helpers/services.ts';

const NO_REDIS = withoutRedis('two instances share their market cache and lock only through Redis');
const TIMEOUT_MS = 4_000;

describe('two instances, one Redis, a failing venue', { skip: NO_REDIS }, () => {
  let binance: BinanceFake;
  let coingecko: CoinGeckoFake;
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    binance = await startBinanceFake();
    coingecko = await startCoinGeckoFake();
    const cachePrefix = `test:${randomUUID()}:`;
    const env = {
      BINANCE_API_URL: binance.url,
      BINANCE_WS_URL: `ws://127.0.0.1:${await closedPort()}`,
      COINGECKO_API_URL: coingecko.url,
      MARKET_UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
    };
    a = await buildTestApp({ env, cachePrefix });
    b = await buildTestApp({ env, cachePrefix, keepData: true });
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await binance?.close();
    await coingecko?.close();
  });

  // Each fault, and what the holder answers: a venue's 5xx is a bad gateway, its silence a gateway timeout.
  for (const [fault, make, status] of [
    // Late enough that the waiter reaches the lock first on a busy machine, still inside the timeout.
    [
      '503 after 2.5 s',
      () =>
        binance
          .delay(2_500, { pathPrefix: '/api/v3/ticker/24hr' })
          .fail(503, undefined, { pathPrefix: '/api/v3/ticker/24hr' }),
      502,
    ],
    [
      'no answer (the holder times out)',
      () => binance.delay(TIMEOUT_MS + 1_500, { pathPrefix: '/api/v3/ticker/24hr' }),
      504,
    ],
  ] as const) {
    it(`${fault}: the waiter answers the holder's failure within the budget, one upstream call for both`, async () => {
      const before = binance.countRequests('/api/v3/ticker/24hr');
      make();
      const url = `/api/v1/market/ticker?limit=${fault.startsWith('503') ? 5 : 6}`;
      const holder = a.app.inject({ method: 'GET', url });
      // The holder has the lock once its upstream call has arrived.
      await waitFor(() => binance.countRequests('/api/v3/ticker/24hr') > before, "the holder's upstream call", 10_000);
      const started = performance.now();
      const waiter = await b.app.inject({ method: 'GET', url });
      const waited = performance.now() - started;
      const held = await holder;
      assert.equal(held.statusCode, status, `holder: ${held.statusCode} ${held.body}`);
      assert.equal(waiter.statusCode, held.statusCode, `waiter: ${waiter.statusCode} ${waiter.body}`);
      assert.ok(waited < TIMEOUT_MS + 1_000, `the waiter answered after ${Math.round(waited)} ms`);
      assert.equal(binance.countRequests('/api/v3/ticker/24hr') - before, 1, 'one upstream call across both instances');
    });
  }
});
