// The order scenarios of issue 39 over every venue beyond Binance (decisions 206, 210–212, 256), one
// table: through POST /api/orders against each venue's fake, a limit order carries its client order id
// in the venue's own field and length, is looked up by it and cancelled; and at each fault of the send
// (the answer dropped after executing, the venue's 5xx after and before executing, an answer slower
// than our timeout) the order is resolved by a lookup by client order id, never sent twice: found
// where the venue executed it, rejected once the venue's receive window has passed where it did not.
// The kill between send and commit is venue-orders-sigkill.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientOrderIdRule } from '../../../src/platform/client-order-ids.ts';
import { ordersOf, type VenueAccount, type VenueFaultKind } from '../../fakes/venue-loopback.ts';
import {
  CONFORMANCE_VENUES,
  conformanceAccount,
  credentialBody,
  type ConformanceFake,
} from '../exchange/conformance-venues.ts';
import { startOrdersApp, type OrdersApp, type Trader } from './orders-fixtures.ts';

/** Per venue: the request that places an order (where the faults are injected). */
const PLACE: Record<string, { path: string; method: string }> = {
  kraken: { path: '/0/private/AddOrder', method: 'POST' },
  coinbase: { path: '/api/v3/brokerage/orders', method: 'POST' },
  okx: { path: '/api/v5/trade/batch-orders', method: 'POST' },
  bybit: { path: '/v5/order/create', method: 'POST' },
};

/** A resting buy (below the fakes' 65,000), so it stays open at the venue. */
const ORDER = { symbol: 'BTC/USDT', side: 'buy', type: 'limit', amount: '0.001', price: '60000' };

const FAULTS: { kind: VenueFaultKind; executes: boolean }[] = [
  { kind: 'drop-after', executes: true },
  { kind: '503-after', executes: true },
  { kind: 'slow-after', executes: true },
  { kind: '503-before', executes: false },
];

let o: OrdersApp;
const fakes = new Map<string, ConformanceFake>();

before(async () => {
  for (const v of CONFORMANCE_VENUES) fakes.set(v.venue, await v.start());
  o = await startOrdersApp({
    env: {
      EXCHANGE_API_URLS: JSON.stringify(Object.fromEntries([...fakes].map(([venue, fake]) => [venue, fake.url]))),
      ...Object.assign({}, ...CONFORMANCE_VENUES.map((v) => v.env ?? {})),
      TRADING_MAX_OPEN_ORDERS: 'none',
      TRADING_MAX_ORDERS_PER_MINUTE: 'none',
      TRADING_MAX_ORDER_NOTIONAL: 'none',
      TRADING_PRICE_BAND_PERCENT: 'none',
    },
  });
});
after(async () => {
  await o?.close();
  for (const fake of fakes.values()) await fake.close();
});

for (const v of CONFORMANCE_VENUES) {
  describe(`orders on ${v.venue}`, () => {
    let fake: ConformanceFake;
    let account: VenueAccount;
    let trader: Trader;
    const rule = clientOrderIdRule(v.venue);

    before(async () => {
      fake = fakes.get(v.venue)!;
      account = fake.addAccount(conformanceAccount(v, 0));
      trader = await o.trader();
      const created = await o.inject(
        'POST',
        '/api/exchange/credentials',
        trader.headers,
        credentialBody(v, account, 'exchange_name'),
      );
      assert.equal(created.statusCode, 201, created.body);
    });

    const atVenue = (clientId: string) => ordersOf(account).filter((order) => order.clientId === clientId);
    const stored = async (id: string) => (await o.inject('GET', `/api/orders/${id}`, trader.headers)).json();

    it(`places with the client order id in ${rule.param} (at most ${rule.maxLength}), finds it and cancels it`, async () => {
      const placed = await o.place(trader, { exchange: v.venue, ...ORDER });
      assert.equal(placed.statusCode, 201, placed.body);
      const order = placed.json();
      assert.equal(order.status, 'open', placed.body);
      const clientId: string = order.client_order_id;
      assert.ok(clientId.length <= rule.maxLength, clientId);
      if (rule.alphanumeric) assert.match(clientId, /^[A-Za-z0-9]+$/);
      const sent = fake.requests.filter((r) => r.path === PLACE[v.venue]!.path).at(-1)!;
      assert.ok(
        new RegExp(`"?${rule.param}"?[=:]"?${clientId}`).test(decodeURIComponent(sent.body + sent.rawQuery)),
        `${rule.param} carries it: ${sent.body}`,
      );
      const [venueOrder] = atVenue(clientId);
      assert.equal(venueOrder?.status, 'open');

      const pass = await o.t.modules.orders.reconcile();
      assert.equal(pass.failed, 0);
      assert.equal((await stored(order.id)).status, 'open', 'the lookup by client order id finds it open');

      const canceled = await o.inject('DELETE', `/api/orders/${order.id}`, trader.headers);
      assert.equal(canceled.statusCode, 200, canceled.body);
      assert.equal(canceled.json().status, 'canceled', canceled.body);
      assert.equal(atVenue(clientId)[0]?.status, 'canceled');
    });

    for (const fault of FAULTS) {
      it(`${fault.kind} on the send: looked up by client order id, ${fault.executes ? 'found' : 'rejected after the receive window'}, sent once`, async () => {
        fake.fault(fault.kind, { ...PLACE[v.venue]!, ms: 2_500, reply5xx: v.outage });
        const placed = await o.place(trader, { exchange: v.venue, ...ORDER });
        assert.equal(placed.statusCode, 201, placed.body);
        const order = placed.json();
        if (fault.executes) {
          assert.equal(order.status, 'open', `found by the lookup right after the send: ${placed.body}`);
        } else {
          assert.equal(order.status, 'unknown', 'not found while the request may still arrive');
          o.clock.advance(rule.receiveWindowMs + 1_000);
        }
        const pass = await o.t.modules.orders.reconcile();
        assert.equal(pass.failed, 0);
        const after = await stored(order.id);
        assert.equal(after.status, fault.executes ? 'open' : 'rejected', JSON.stringify(after));
        assert.equal(atVenue(order.client_order_id).length, fault.executes ? 1 : 0, 'sent once, never again');
        fake.clearFailures();
      });
    }
  });
}
