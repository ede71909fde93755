// A process's first paper order loads the venue library (ccxt) for the venue's fee rates: one block of
// the event loop, about half a second on a quiet machine and seconds on a busy one. The load is not the
// venue's slowness, so it must not count against the bound of the order's book read, nor against that of
// another call in flight while it runs (decision 700).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signIn, type TestUser } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import { busyMachineCcxt, SLOW_CCXT_LOAD_MS } from '../../helpers/slow-ccxt.ts';
import { startMarket, type MarketHarness } from '../market/market-fixtures.ts';
import { limitBuy } from './paper-fixtures.ts';

/** The market's upstream bound: the book read's, kept short. */
const BOOK_BOUND_MS = 3_000;

/** A fresh harness: the venue library not yet loaded by its app. */
async function started(): Promise<MarketHarness> {
  const m = await startMarket({
    env: { MARKET_UPSTREAM_TIMEOUT_MS: String(BOOK_BOUND_MS) },
    modules: { loadCcxt: busyMachineCcxt },
  });
  // The market answers (its symbols read, its connection open) before the order; ETH's book, so that
  // the order's BTC book is read from the venue, not from the market's 2 s cache.
  await waitFor(
    async () => (await m.get('/api/v1/market/orderbook?symbol=ETHUSDT')).status === 200,
    'the market to answer a book',
    60_000,
    250,
  ).catch(async (error: unknown) => {
    await m.stop();
    throw error;
  });
  return m;
}

describe('the first paper order after a start, with a slow venue library load', () => {
  let m: MarketHarness;
  let user: TestUser;

  before(async () => {
    m = await started();
    user = await signIn(m.app, m.database);
  });
  after(() => m?.stop());

  it('is accepted: the load is over before the book read starts, whose bound stays the venue’s', async () => {
    const booksBefore = m.binance.requests.filter((r) => r.path === '/api/v3/depth').length;
    const started = performance.now();
    const result = await m.modules.paper.venue.submit(limitBuy(user.id, { amount: '0.01', price: '100' }));
    const took = performance.now() - started;
    assert.equal(result.kind, 'accepted', JSON.stringify(result));
    // The load did happen inside this order, and the book was read from the venue after it.
    assert.ok(took >= SLOW_CCXT_LOAD_MS, `the order took ${took} ms, less than the load's ${SLOW_CCXT_LOAD_MS}`);
    assert.equal(m.binance.requests.filter((r) => r.path === '/api/v3/depth').length, booksBefore + 1);
  });
});

describe('a book read in flight while another call loads the venue library', () => {
  let m: MarketHarness;
  before(async () => {
    m = await started();
  });
  after(() => m?.stop());

  it('is answered: the venue answered during the load, and its answer is read before the bound ends', async () => {
    // Binance answers 300 ms after the request, while the load holds this process's loop for 4 s.
    m.binance.delay(300, { pathPrefix: '/api/v3/depth' });
    const depthsBefore = m.binance.countRequests('/api/v3/depth');
    const book = m.get('/api/v1/market/orderbook?symbol=BTCUSDT');
    await waitFor(() => m.binance.countRequests('/api/v3/depth') > depthsBefore, 'the book read to reach Binance');
    const started = performance.now();
    // Another user's first paper order reads the fee rates: the venue library loads.
    await m.modules.exchange.tradingFees('binance');
    assert.ok(performance.now() - started >= SLOW_CCXT_LOAD_MS);
    const answer = await book;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  });
});
