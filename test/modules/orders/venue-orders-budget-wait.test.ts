// A reconcile pass whose lookups wait for a key's room at the venue longer than the venue timeout still
// brings every order to the venue's state (decision 520). OKX answers an order without its fills, so a
// filled order's lookup reads them from trade/fills-history, 10 calls per 2 s per key, which the budget
// counts before each call leaves (decision 255). The orders fault-points test met it as one pass over
// several resting orders the price had filled: the later reads of fills waited for room past the 400 ms
// timeout, timed out unsent, and their orders stayed `open` (or `unknown`) while the venue held them filled.
// Here our share of the key's limits is cut, so the second and third reads of fills wait about a second.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ordersOf, type VenueAccount } from '../../fakes/venue-loopback.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { CONFORMANCE_VENUES, conformanceAccount, type ConformanceFake } from '../exchange/conformance-venues.ts';
import { startVenueOrdersApp, type Trader, type VenueOrdersApp } from './orders-fixtures.ts';

const okx = CONFORMANCE_VENUES.find((v) => v.venue === 'okx')!;
const FILLS = '/api/v5/trade/fills-history';

describe('a reconcile pass whose reads of fills wait for the key’s room longer than the venue timeout', () => {
  let o: VenueOrdersApp;
  let fake: ConformanceFake;
  let account: VenueAccount;
  let trader: Trader;

  before(async () => {
    o = await startVenueOrdersApp([okx], {
      EXCHANGE_TIMEOUT_MS: '400',
      // A quarter of OKX's 10 per 2 s on fills-history: 1.25 at once, then one call every 1.6 s.
      VENUE_WEIGHT_SHARE_PERCENT: '25',
      VENUE_BUDGET_MAX_WAIT_MS: '5000',
      TRADING_MAX_OPEN_ORDERS: 'none',
      TRADING_MAX_ORDERS_PER_MINUTE: 'none',
      TRADING_MAX_ORDER_NOTIONAL: 'none',
      TRADING_PRICE_BAND_PERCENT: 'none',
    });
    fake = o.fakes.get(okx.venue)!;
    account = fake.addAccount({ ...conformanceAccount(okx, 0), fills: [] });
    trader = await o.trader();
    await storeVenueCredential(o.t.app, trader, okx.venue, account);
  });
  after(async () => {
    await o?.close();
  });

  it('stores each order filled, with the venue’s fills, in one pass', async () => {
    const ids: string[] = [];
    for (const price of ['64000', '63900', '63800']) {
      const placed = await o.place(trader, {
        exchange: 'okx',
        symbol: 'BTC/USDT',
        side: 'buy',
        type: 'limit',
        amount: '0.001',
        price,
      });
      assert.equal(placed.statusCode, 201, placed.body);
      assert.equal(placed.json().status, 'open', placed.body);
      ids.push(placed.json().id);
    }
    assert.equal(fake.cross('BTC', 'USDT', '63000'), 3, 'all three filled at the venue');
    const sent = fake.requests.length;

    const pass = await o.t.modules.orders.reconcile();
    assert.equal(pass.failed, 0);
    for (const id of ids) {
      const order = (await o.inject('GET', `/api/orders/${id}`, trader.headers)).json();
      const [venue] = ordersOf(account).filter((v) => v.clientId === order.client_order_id);
      assert.equal(venue?.status, 'filled');
      assert.equal(order.status, 'filled', JSON.stringify(order));
      assert.equal(order.filled, venue!.filled);
      assert.deepEqual(
        (order.fills as { id: string }[]).map((f) => f.id),
        account.fills.filter((f) => f.orderId === venue!.id).map((f) => f.id),
      );
    }
    const reads = fake.requests.slice(sent).filter((r) => r.path === FILLS);
    assert.equal(reads.length, 3, 'each order’s fills read once, after waiting for room');
  });
});
