// A halt's cancel-all is bounded from when it is ready (decision 801): a process whose first use of the
// venue library is a halt's cancel of a live order loads it (one block of the event loop of seconds on a
// busy machine) before the listener's bound starts, as a venue check does (decision 700).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { busyMachineCcxt, SLOW_CCXT_LOAD_MS } from '../../helpers/slow-ccxt.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

/** Shorter than the load's block, as the 20 s bound is shorter than a load on a machine busy enough. */
const LISTENER_TIMEOUT_MS = 3_000;

describe("a halt's cancels in a process that has not loaded the venue library", () => {
  let o: OrdersApp;
  let fresh: TestApp;
  before(async () => {
    o = await startOrdersApp({ app: { cachePrefix: 'halt-first-load:' } });
    // A second instance on the same database, its venue library not loaded, and as slow to load as a busy machine.
    fresh = await buildTestApp({
      keepData: true,
      clock: o.clock,
      cachePrefix: 'halt-first-load:',
      env: {
        BINANCE_API_URL: o.binance.url,
        EXCHANGE_RATE_LIMIT: 'false',
        EXCHANGE_TIMEOUT_MS: '1500',
        LIVE_TRADING: 'true',
      },
      modules: { loadCcxt: busyMachineCcxt, haltListenerTimeoutMs: LISTENER_TIMEOUT_MS },
    });
  });
  after(async () => {
    await fresh?.close();
    await o?.close();
  });

  it('cancels a live order and reports all canceled: the load is not in the listener’s bound', async () => {
    const trader = await o.trader();
    const resting = (await o.place(trader, { type: 'limit', price: '60000' })).json();
    assert.equal(resting.status, 'open');
    const started = performance.now();
    const halted = await fresh.app.inject({
      method: 'POST',
      url: '/api/trading/halt',
      headers: trader.headers,
      payload: { reason: 'first use' },
    });
    assert.ok(performance.now() - started >= SLOW_CCXT_LOAD_MS, 'the load happened inside the halt');
    assert.equal(halted.statusCode, 200, halted.body);
    assert.equal(halted.json().all_canceled, true, halted.body);
    assert.equal(halted.json().canceled_orders, 1, halted.body);
    assert.equal(o.book.of(trader.account.apiKey)[0]!.status, 'CANCELED');
  });
});
