// The order scenarios of issue 39 over every venue beyond Binance (decisions 206, 210–212, 256), one
// table: through POST /api/orders against each venue's fake, a limit order carries its client order id
// in the venue's own field and length, is looked up by it and cancelled; and at each fault of the send
// (the answer dropped after executing, the venue's 5xx after and before executing, an answer slower
// than our timeout) the order is resolved by a lookup by client order id, never sent twice: found
// where the venue executed it, rejected once the venue's receive window has passed where it did not.
// A market order fills at once and its fills are stored once, as the user's trades, the very rows trade
// sync stores of them (a second user syncing the same fills through another key of the account); a limit
// rests, then fills when the price crosses it; reconcile brings an `unknown` order that filled at the
// venue to `filled` with its fills. The kill between send and commit is venue-orders-sigkill.test.ts;
// the random faults are venue-orders-fault-points.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientOrderIdRule } from '../../../src/platform/client-order-ids.ts';
import { SIGN_WITHIN_MS } from '../../../src/platform/order-venue.ts';
import { ordersOf, type VenueAccount, type VenueFaultKind } from '../../fakes/venue-loopback.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { CONFORMANCE_VENUES, conformanceAccount, type ConformanceFake } from '../exchange/conformance-venues.ts';
import { startVenueOrdersApp, type Trader, type VenueOrdersApp } from './orders-fixtures.ts';

/** What a stored trade says, beside our own ids and when it was stored. */
const tradeRow = (r: Record<string, unknown>) =>
  [r.exchange_trade_id, r.symbol, r.side, r.price, r.amount, r.total, r.fee, r.fee_currency, r.trade_timestamp].join(
    ' ',
  );

/** A resting buy (below the fakes' 65,000), so it stays open at the venue. */
const ORDER = { symbol: 'BTC/USDT', side: 'buy', type: 'limit', amount: '0.001', price: '60000' };

const FAULTS: { kind: VenueFaultKind; executes: boolean }[] = [
  { kind: 'drop-after', executes: true },
  { kind: '503-after', executes: true },
  { kind: 'slow-after', executes: true },
  { kind: '503-before', executes: false },
];

let o: VenueOrdersApp;

before(async () => {
  o = await startVenueOrdersApp(CONFORMANCE_VENUES, {
    TRADING_MAX_OPEN_ORDERS: 'none',
    TRADING_MAX_ORDERS_PER_MINUTE: 'none',
    TRADING_MAX_ORDER_NOTIONAL: 'none',
    TRADING_PRICE_BAND_PERCENT: 'none',
  });
});
after(async () => {
  await o?.close();
});

for (const v of CONFORMANCE_VENUES) {
  describe(`orders on ${v.venue}`, () => {
    let fake: ConformanceFake;
    let account: VenueAccount;
    let trader: Trader;
    const rule = clientOrderIdRule(v.venue);

    before(async () => {
      fake = o.fakes.get(v.venue)!;
      account = fake.addAccount(conformanceAccount(v, 0));
      trader = await o.trader();
      await storeVenueCredential(o.t.app, trader, v.venue, account);
    });

    const atVenue = (clientId: string) => ordersOf(account).filter((order) => order.clientId === clientId);
    const stored = async (id: string) => (await o.inject('GET', `/api/orders/${id}`, trader.headers)).json();
    const trades = async (user: Trader) => {
      const listed = await o.inject(
        'GET',
        `/api/exchange/trades?exchange=${v.venue}&symbol=BTC/USDT&limit=1000`,
        user.headers,
      );
      assert.equal(listed.statusCode, 200, listed.body);
      return (listed.json().trades as Record<string, unknown>[]).map(tradeRow).sort();
    };
    /** The order's fills as the venue holds them, and as stored: the same trade ids, amounts and prices. */
    async function assertFilled(id: string, clientId: string) {
      const order = await stored(id);
      const [venueOrder] = atVenue(clientId);
      assert.equal(venueOrder?.status, 'filled');
      const venueFills = account.fills.filter((f) => f.orderId === venueOrder!.id);
      assert.ok(venueFills.length > 0);
      assert.equal(order.status, 'filled', JSON.stringify(order));
      assert.equal(order.filled, venueOrder!.filled);
      assert.deepEqual(
        (order.fills as { id: string; amount: string; price: string }[]).map((f) => [f.id, f.amount, f.price]).sort(),
        venueFills.map((f) => [f.id, f.amount, f.price]).sort(),
      );
      const ids = new Set(venueFills.map((f) => f.id));
      const mine = (await trades(trader)).filter((row) => ids.has(row.split(' ')[0]!));
      assert.equal(mine.length, venueFills.length, "each fill stored once as the user's trade");
    }

    it(`places with the client order id in ${rule.param} (at most ${rule.maxLength}), finds it and cancels it`, async () => {
      const placed = await o.place(trader, { exchange: v.venue, ...ORDER });
      assert.equal(placed.statusCode, 201, placed.body);
      const order = placed.json();
      assert.equal(order.status, 'open', placed.body);
      const clientId: string = order.client_order_id;
      assert.ok(clientId.length <= rule.maxLength, clientId);
      if (rule.alphanumeric) assert.match(clientId, /^[A-Za-z0-9]+$/);
      const sent = fake.requests.filter((r) => r.path === v.orders.place.path).at(-1)!;
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

    const faults = [
      ...FAULTS.map((fault) => ({ ...fault, reply: v.outage, answer: '' })),
      // The venue's answers that ccxt reads as its refusal, yet say nothing of the outcome.
      ...v.noOutcome.flatMap((reply) =>
        FAULTS.filter((f) => f.kind === '503-after' || f.kind === '503-before').map((fault) => ({
          ...fault,
          reply,
          answer: ` answering ${reply.status ?? 200} ${JSON.stringify(reply.body)}`,
        })),
      ),
    ];
    for (const fault of faults) {
      it(`${fault.kind}${fault.answer} on the send: looked up by client order id, ${fault.executes ? 'found' : 'rejected after the receive window'}, sent once`, async () => {
        fake.fault(fault.kind, { ...v.orders.place, ms: 2_500, reply5xx: fault.reply });
        const placed = await o.place(trader, { exchange: v.venue, ...ORDER });
        assert.equal(placed.statusCode, 201, placed.body);
        const order = placed.json();
        if (fault.executes) {
          assert.equal(order.status, 'open', `found by the lookup right after the send: ${placed.body}`);
        } else {
          assert.equal(order.status, 'unknown', 'not found while the request may still arrive');
          o.clock.advance(rule.receiveWindowMs + SIGN_WITHIN_MS + 1_000);
        }
        const pass = await o.t.modules.orders.reconcile();
        assert.equal(pass.failed, 0);
        const after = await stored(order.id);
        assert.equal(after.status, fault.executes ? 'open' : 'rejected', JSON.stringify(after));
        assert.equal(atVenue(order.client_order_id).length, fault.executes ? 1 : 0, 'sent once, never again');
        fake.clearFailures();
      });
    }

    it("fills a market order at once; its fills are the user's trades once, the rows trade sync stores of them", async () => {
      const placed = await o.place(trader, {
        exchange: v.venue,
        symbol: 'BTC/USDT',
        side: 'buy',
        type: 'market',
        amount: '0.001',
      });
      assert.equal(placed.statusCode, 201, placed.body);
      const order = placed.json();
      assert.equal(order.status, 'filled', placed.body);
      await assertFilled(order.id, order.client_order_id);
      const before = await trades(trader);

      // Another user with another key of the same venue account syncs the same fills: the same rows.
      const twin = fake.addAccount({ ...v.key(), balances: account.balances, fills: account.fills });
      const other = await o.trader();
      await storeVenueCredential(o.t.app, other, v.venue, twin);
      const synced = await o.inject(
        'POST',
        `/api/exchange/trades/sync?exchange=${v.venue}&symbol=BTC/USDT`,
        other.headers,
      );
      assert.equal(synced.statusCode, 200, synced.body);
      assert.deepEqual(await trades(other), before, 'what trade sync stores of the same fills');

      // The trader's own sync finds them stored already: nothing doubles.
      const again = await o.inject(
        'POST',
        `/api/exchange/trades/sync?exchange=${v.venue}&symbol=BTC/USDT`,
        trader.headers,
      );
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().trades_synced, 0, again.body);
      assert.deepEqual(await trades(trader), before);
    });

    it('rests a limit order until the price crosses it; reconcile stores it partly filled, then filled, with its fills', async () => {
      // A sell above the touch: the resting buys of the tests above stay where they are.
      const placed = await o.place(trader, {
        exchange: v.venue,
        symbol: 'BTC/USDT',
        side: 'sell',
        type: 'limit',
        amount: '0.001',
        price: '70000',
      });
      assert.equal(placed.statusCode, 201, placed.body);
      const order = placed.json();
      assert.equal(order.status, 'open', placed.body);
      await o.t.modules.orders.reconcile();
      assert.equal((await stored(order.id)).status, 'open', 'still resting');
      // 0.0004 traded at its price: partly filled, as the venue reports it.
      assert.equal(fake.cross('BTC', 'USDT', '70100', '0.0004'), 1);
      assert.equal((await o.t.modules.orders.reconcile()).failed, 0);
      const partly = await stored(order.id);
      assert.equal(partly.status, 'partially_filled', JSON.stringify(partly));
      assert.equal(partly.filled, '0.0004');
      assert.deepEqual(
        partly.fills.map((f: { amount: string; price: string }) => [f.amount, f.price]),
        [['0.0004', '70000']],
      );
      assert.equal(fake.cross('BTC', 'USDT', '70100'), 1);
      assert.equal((await o.t.modules.orders.reconcile()).failed, 0);
      await assertFilled(order.id, order.client_order_id);
      assert.equal((await stored(order.id)).fills.length, 2);
    });

    it('reconcile brings an unknown order that filled at the venue to filled, with its fills', async () => {
      // The answer to the send is lost after it executed, and the lookup right after it meets an outage.
      fake.fault('drop-after', { ...v.orders.place, reply5xx: v.outage });
      fake.fail(v.outage, { path: v.orders.lookup.path, times: 1 });
      const placed = await o.place(trader, {
        exchange: v.venue,
        symbol: 'BTC/USDT',
        side: 'sell',
        type: 'market',
        amount: '0.002',
      });
      assert.equal(placed.statusCode, 201, placed.body);
      const order = placed.json();
      assert.equal(order.status, 'unknown', placed.body);
      assert.equal(atVenue(order.client_order_id)[0]?.status, 'filled', 'it filled at the venue');
      const pass = await o.t.modules.orders.reconcile();
      assert.equal(pass.failed, 0);
      await assertFilled(order.id, order.client_order_id);
      assert.equal(atVenue(order.client_order_id).length, 1, 'sent once');
      fake.clearFailures();
    });

    it('a pass counts a lookup the venue did not answer, and leaves the order to the next pass', async () => {
      const placed = await o.place(trader, { exchange: v.venue, ...ORDER });
      assert.equal(placed.statusCode, 201, placed.body);
      const order = placed.json();
      // One lookup of this venue's orders meets an outage; the pass still answers, and says so.
      fake.fail(v.outage, { path: v.orders.lookup.path, times: 1 });
      const logged = o.t.logLines().length;
      const during = await o.t.modules.orders.reconcile();
      fake.clearFailures();
      assert.equal(during.failed, 0, JSON.stringify(during));
      assert.equal(during.unanswered, 1, JSON.stringify(during));
      // The log names the order (the first the pass looked up: an earlier one may be open too) and why
      // it went unanswered, for whoever looks at a pass that says so.
      const warned = o.t
        .logLines()
        .slice(logged)
        .filter((line) => line.msg === 'the venue left an order unanswered: the next pass asks again');
      assert.equal(warned.length, 1, JSON.stringify(warned));
      assert.equal(warned[0]!.exchange, v.venue);
      assert.equal((await stored(String(warned[0]!.orderId))).exchange, v.venue);
      assert.match(String(warned[0]!.reason), /no answer from the venue/);
      assert.equal((await stored(order.id)).status, 'open');
      const next = await o.t.modules.orders.reconcile();
      assert.equal(next.unanswered, 0, JSON.stringify(next));
      assert.equal(next.failed, 0, JSON.stringify(next));
      assert.equal((await stored(order.id)).status, 'open', 'still resting, read this time');
    });
  });
}
