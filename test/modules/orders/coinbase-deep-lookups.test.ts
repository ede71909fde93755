// Coinbase has no lookup by client order id: an order is found in its listing of orders, which pages
// newest first, 100 a page unless asked for more (decision 1290). Here the user has placed more orders
// on the pair since the one looked up than one page holds: the resting order is still read (a fill
// stored, the cancel reaching the venue), an `unknown` one the venue holds is found rather than rejected,
// one it never received is rejected once the listing has ended, and one past the pages a lookup may read
// stays `unknown`, never rejected. The other orders are placed in the fake's account directly: through
// the API they would take minutes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { COINBASE_PAGES } from '../../../src/modules/exchange/adapters/venue-order-lookups.ts';
import { clientOrderIdRule } from '../../../src/platform/client-order-ids.ts';
import { SIGN_WITHIN_MS } from '../../../src/platform/order-venue.ts';
import { ordersOf, placeOrder, type VenueAccount } from '../../fakes/venue-loopback.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { CONFORMANCE_VENUES, conformanceAccount, type ConformanceFake } from '../exchange/conformance-venues.ts';
import { startVenueOrdersApp, type Trader, type VenueOrdersApp } from './orders-fixtures.ts';

const coinbase = CONFORMANCE_VENUES.find((v) => v.venue === 'coinbase')!;
const LIST = '/api/v3/brokerage/orders/historical/batch';
/** How long after its claim an order not found is taken as never received: the window plus late signing (decision 1310). */
const RECEIVE_WINDOW_MS = clientOrderIdRule('coinbase').receiveWindowMs + SIGN_WITHIN_MS;
/** A resting buy (below the fake's 65,000). */
const RESTING = {
  exchange: 'coinbase',
  symbol: 'BTC/USDT',
  side: 'buy',
  type: 'limit',
  amount: '0.001',
  price: '60000',
};

let o: VenueOrdersApp;
let fake: ConformanceFake;

before(async () => {
  o = await startVenueOrdersApp([coinbase], {
    TRADING_MAX_OPEN_ORDERS: 'none',
    TRADING_MAX_ORDERS_PER_MINUTE: 'none',
    TRADING_MAX_ORDER_NOTIONAL: 'none',
    TRADING_PRICE_BAND_PERCENT: 'none',
    // The listing's pages hold 1,000 orders each, read from a fake in this process: on a loaded machine
    // one may take longer than the fixtures' 1.5 s, and a lookup would then go unanswered. This file tests
    // the paging; the venue's timeouts are the fault points' and the conformance suite's.
    EXCHANGE_TIMEOUT_MS: '5000',
  });
  fake = o.fakes.get(coinbase.venue)!;
});
after(async () => {
  await o?.close();
});

describe('Coinbase lookups under more orders than a page of its listing holds', () => {
  /** A trader with a Coinbase account of their own. */
  async function coinbaseTrader(): Promise<{ trader: Trader; account: VenueAccount }> {
    const account = fake.addAccount(conformanceAccount(coinbase, 0));
    const trader = await o.trader();
    await storeVenueCredential(o.t.app, trader, 'coinbase', account);
    return { trader, account };
  }

  /** `count` orders on BTC/USDT placed since, at the venue, long done (canceled). */
  function placeOthers(account: VenueAccount, count: number): void {
    for (let i = 0; i < count; i += 1) {
      const order = placeOrder(
        account,
        {
          clientId: `other-${randomUUID()}`,
          base: 'BTC',
          quote: 'USDT',
          side: 'buy',
          type: 'limit',
          amount: '0.001',
          price: '50000',
        },
        randomUUID(),
      )!;
      order.status = 'canceled';
    }
  }

  const stored = async (trader: Trader, id: string) =>
    (await o.inject('GET', `/api/orders/${id}`, trader.headers)).json();
  /** The listings asked with the account's key (its name is the JWT's `kid`). */
  const listings = (account: VenueAccount) =>
    fake.requests.filter((r) => {
      const token = String(r.headers.authorization ?? '').replace(/^Bearer /, '');
      const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString() || '{}');
      return r.method === 'GET' && r.path === LIST && header.kid === account.apiKey;
    }).length;

  /** A resting order placed through the API, then `others` orders on the pair at the venue. */
  async function restingUnder(others: number, body: Record<string, unknown> = RESTING) {
    const { trader, account } = await coinbaseTrader();
    const placed = await o.place(trader, body);
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json();
    assert.equal(order.status, 'open', placed.body);
    const atVenue = () => ordersOf(account).find((v) => v.clientId === order.client_order_id)!;
    assert.equal(order.venue_order_id, atVenue().id);
    placeOthers(account, others);
    return { trader, account, order, atVenue };
  }

  it('a resting order: reconcile stores its fill', async () => {
    const { trader, account, order, atVenue } = await restingUnder(150, { ...RESTING, side: 'sell', price: '70000' });

    assert.equal(fake.cross('BTC', 'USDT', '70100', '0.0004'), 1);
    const pass = await o.t.modules.orders.reconcile();
    assert.equal(pass.failed, 0, JSON.stringify(pass));
    const partly = await stored(trader, order.id);
    assert.equal(partly.status, 'partially_filled', JSON.stringify(partly));
    assert.deepEqual(
      partly.fills.map((f: { id: string; amount: string }) => [f.id, f.amount]),
      account.fills.filter((f) => f.orderId === atVenue().id).map((f) => [f.id, f.amount]),
    );
    assert.ok(
      fake.requests.some((r) => r.path === `/api/v3/brokerage/orders/historical/${atVenue().id}`),
      'asked by the venue id the venue named',
    );
  });

  it('a resting order: DELETE cancels it at the venue', async () => {
    const { trader, order, atVenue } = await restingUnder(150);
    const canceled = await o.inject('DELETE', `/api/orders/${order.id}`, trader.headers);
    assert.equal(canceled.statusCode, 200, canceled.body);
    assert.equal(canceled.json().status, 'canceled', canceled.body);
    assert.equal(atVenue().status, 'canceled', 'canceled at the venue');
  });

  it('an unknown order the venue executed: found on a later page, not rejected after the receive window', async () => {
    const { trader, account } = await coinbaseTrader();
    // The answer to the send is lost after it executed, and the lookup right after it meets an outage.
    fake.fault('drop-after', { ...coinbase.orders.place, reply5xx: coinbase.outage });
    fake.fail(coinbase.outage, { path: LIST, times: 1 });
    const placed = await o.place(trader, RESTING);
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json();
    assert.equal(order.status, 'unknown', placed.body);
    fake.clearFailures();
    placeOthers(account, 2_500);
    o.clock.advance(RECEIVE_WINDOW_MS + 1_000);

    const before = listings(account);
    const logged = o.t.logLines().length;
    const pass = await o.t.modules.orders.reconcile();
    assert.equal(pass.failed, 0, JSON.stringify(pass));
    const after = await stored(trader, order.id);
    // Once seen `unknown` here in a CI run, its cause not shown: the pass and what it logged of the order say it.
    const said = o.t
      .logLines()
      .slice(logged)
      .filter((line) => line.orderId === order.id);
    assert.equal(after.status, 'open', JSON.stringify({ after, pass, said }));
    const [atVenue] = ordersOf(account).filter((v) => v.clientId === order.client_order_id);
    assert.equal(after.venue_order_id, atVenue!.id);
    assert.equal(listings(account) - before, 3, 'three pages of 1000, newest first');
  });

  it('an unknown order the venue never received: rejected after the receive window, the listing read to its end', async () => {
    const { trader, account } = await coinbaseTrader();
    fake.fault('503-before', { ...coinbase.orders.place, reply5xx: coinbase.outage });
    const placed = await o.place(trader, RESTING);
    assert.equal(placed.statusCode, 201, placed.body);
    const order = placed.json();
    assert.equal(order.status, 'unknown', placed.body);
    placeOthers(account, 1_500);
    o.clock.advance(RECEIVE_WINDOW_MS + 1_000);

    const before = listings(account);
    assert.equal((await o.t.modules.orders.reconcile()).failed, 0);
    assert.equal((await stored(trader, order.id)).status, 'rejected');
    assert.equal(listings(account) - before, 2);
    assert.equal(ordersOf(account).filter((v) => v.clientId === order.client_order_id).length, 0, 'never sent again');
  });

  it(`past the ${COINBASE_PAGES} pages a lookup reads: unknown, never rejected`, async () => {
    const { trader, account } = await coinbaseTrader();
    fake.fault('503-before', { ...coinbase.orders.place, reply5xx: coinbase.outage });
    const placed = await o.place(trader, RESTING);
    const order = placed.json();
    assert.equal(order.status, 'unknown', placed.body);
    placeOthers(account, COINBASE_PAGES * 1_000 + 1);
    o.clock.advance(RECEIVE_WINDOW_MS + 1_000);

    const logged = o.t.logLines().length;
    const before = listings(account);
    const pass = await o.t.modules.orders.reconcile();
    assert.equal(pass.failed, 0, JSON.stringify(pass));
    assert.equal(pass.unanswered, 1, JSON.stringify(pass));
    assert.equal(listings(account) - before, COINBASE_PAGES);
    assert.equal((await stored(trader, order.id)).status, 'unknown', 'the order may be further on');
    const warned = o.t
      .logLines()
      .slice(logged)
      .find((line) => line.orderId === order.id);
    assert.match(String(warned?.reason), /more follow/);
  });
});
