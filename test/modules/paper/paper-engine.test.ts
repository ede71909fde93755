// The paper engine through its OrderVenue: orders walk the Binance fake's real depth answer with
// Binance's fee, settle the paper balances, and are looked up and canceled by client order id. No
// signed (private) Binance endpoint is ever called.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { VenueOrderRequest } from '../../../src/platform/order-venue.ts';
import { signIn, type TestUser } from '../../helpers/test-app.ts';
import type { MarketHarness } from '../market/market-fixtures.ts';
import { startPaperMarket } from './paper-fixtures.ts';

describe('paper engine', () => {
  let m: MarketHarness;
  let user: TestUser;

  const order = (o: Partial<VenueOrderRequest>): VenueOrderRequest => ({
    userId: user.id,
    exchange: 'binance',
    symbol: 'BTC/USDT',
    clientOrderId: `t-${randomUUID()}`,
    side: 'buy',
    type: 'market',
    timeInForce: 'GTC',
    amount: '0.5',
    price: null,
    credentialId: null,
    ...o,
  });
  const venue = () => m.modules.paper.venue;
  const reset = async (balances: Record<string, string>) => {
    const r = await m.app.inject({
      method: 'POST',
      url: '/api/paper/account/reset',
      headers: user.headers,
      payload: { balances },
    });
    assert.equal(r.statusCode, 200, r.body);
  };
  const balances = async () => {
    const r = await m.app.inject({ method: 'GET', url: '/api/paper/account', headers: user.headers });
    return Object.fromEntries(
      r
        .json<{ balances: { asset: string; free: string; locked: string }[] }>()
        .balances.map((b) => [b.asset, [b.free, b.locked]]),
    );
  };
  const accepted = async (request: VenueOrderRequest) => {
    const result = await venue().submit(request);
    assert.equal(result.kind, 'accepted', JSON.stringify(result));
    return (result as Extract<typeof result, { kind: 'accepted' }>).state;
  };

  before(async () => {
    m = await startPaperMarket();
    user = await signIn(m.app, m.database);
  });
  after(() => m?.stop());
  beforeEach(() => reset({ USDT: '100000', BTC: '2' }));

  it('a market buy walks the asks with the taker fee charged in the base asset', async () => {
    // The fake's BTCUSDT asks: 0.4 @ 65000.01, 0.6 @ 65000.02, ...; Binance's taker fee 0.1 %.
    const state = await accepted(order({ amount: '0.5' }));
    assert.equal(state.status, 'filled');
    assert.equal(state.filled, '0.5');
    assert.equal(state.averagePrice, '65000.012');
    assert.deepEqual(
      state.fills.map((f) => [f.price, f.amount, f.fee, f.feeCurrency, f.maker]),
      [
        ['65000.01', '0.4', '0.0004', 'BTC', false],
        ['65000.02', '0.1', '0.0001', 'BTC', false],
      ],
    );
    for (const fill of state.fills) assert.match(fill.tradeId, /^paper:[0-9a-f-]{36}$/);
    // 26000.004 + 6500.002 USDT paid; 0.5 BTC less 0.0005 BTC fee received.
    assert.deepEqual(await balances(), { BTC: ['2.4995', '0'], USDT: ['67499.994', '0'] });
    assert.ok(m.binance.countRequests('/api/v3/depth') >= 1, "the venue's book was read");
    assert.equal(
      m.binance.requests.filter((r) => r.path.startsWith('/api/v3/order') || r.path === '/api/v3/account').length,
      0,
      'no private endpoint is called',
    );
  });

  it('answers a client order id again with the same order, never a second fill', async () => {
    const request = order({ amount: '0.1' });
    const first = await accepted(request);
    const again = await accepted(request);
    assert.deepEqual(again, first);
    const looked = await venue().lookup(request);
    assert.deepEqual(looked, { kind: 'found', state: first });
    assert.deepEqual((await balances()).BTC, ['2.0999', '0']);
  });

  it('a crossing limit sell fills down to its price, rests the rest with its base locked, and a cancel frees it', async () => {
    // Bids: 0.5 @ 64999.99, 0.75 @ 64999.98, 1 @ 64999.97: a sell of 2 at 64999.98 takes 1.25, rests 0.75.
    const request = order({ side: 'sell', type: 'limit', amount: '2', price: '64999.98' });
    const state = await accepted(request);
    assert.equal(state.status, 'partially_filled');
    assert.equal(state.filled, '1.25');
    // Proceeds 32499.995 + 48749.985 = 81249.98 less 0.1 % in USDT (81.24998).
    assert.deepEqual(await balances(), { BTC: ['0', '0.75'], USDT: ['181168.73002', '0'] });

    const canceled = await venue().cancel(request);
    assert.equal(canceled.kind, 'done');
    assert.equal(canceled.kind === 'done' && canceled.state.status, 'canceled');
    assert.deepEqual((await balances()).BTC, ['0.75', '0']);
    // Canceling again answers the final state; an unknown id is not found.
    assert.equal((await venue().cancel(request)).kind, 'done');
    assert.deepEqual(await venue().cancel(order({})), { kind: 'not_found' });
  });

  it('a limit buy below the book rests entirely with its quote locked', async () => {
    const state = await accepted(order({ type: 'limit', amount: '1', price: '60000' }));
    assert.deepEqual([state.status, state.filled, state.fills], ['open', '0', []]);
    assert.deepEqual((await balances()).USDT, ['40000', '60000']);
  });

  it('IOC fills what crosses and expires the rest; FOK fills all or nothing', async () => {
    // Asks 0.4 @ .01 and 0.6 @ .02 are all there is up to 65000.02.
    const ioc = await accepted(order({ type: 'limit', timeInForce: 'IOC', amount: '1.5', price: '65000.02' }));
    assert.deepEqual([ioc.status, ioc.filled], ['expired', '1']);
    assert.deepEqual((await balances()).USDT, ['34999.984', '0'], 'nothing stays locked');

    await reset({ USDT: '100000' });
    const fok = await accepted(order({ type: 'limit', timeInForce: 'FOK', amount: '1.5', price: '65000.02' }));
    assert.deepEqual([fok.status, fok.filled, fok.fills], ['expired', '0', []]);
    assert.deepEqual(await balances(), { USDT: ['100000', '0'] });
    const whole = await accepted(order({ type: 'limit', timeInForce: 'FOK', amount: '1', price: '65000.02' }));
    assert.deepEqual([whole.status, whole.filled], ['filled', '1']);
  });

  it('refuses what the balance cannot pay, an unknown pair and another venue, storing nothing', async () => {
    const big = order({ amount: '10' });
    assert.deepEqual(await venue().submit(big), {
      kind: 'refused',
      reason: 'Account has insufficient balance for requested action.',
    });
    assert.deepEqual(await venue().lookup(big), { kind: 'not_found' });
    assert.equal((await venue().submit(order({ symbol: 'NOPE/USDT' }))).kind, 'refused');
    const kraken = await venue().submit(order({ exchange: 'kraken' }));
    assert.equal(kraken.kind, 'refused');
    assert.deepEqual(await balances(), { BTC: ['2', '0'], USDT: ['100000', '0'] });
  });

  it('refuses, naming the cause, when the venue cannot give its book', async () => {
    m.binance.fail(
      503,
      { code: -1003, msg: 'Too much request weight used.' },
      { times: 10, pathPrefix: '/api/v3/depth' },
    );
    const result = await venue().submit(order({ symbol: 'ETH/USDT', amount: '1' }));
    assert.equal(result.kind, 'refused');
    assert.match(result.kind === 'refused' ? result.reason : '', /book could not be read/);
  });
});
