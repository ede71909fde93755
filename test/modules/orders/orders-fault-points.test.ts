// The property of the one door (issue 39 part 7): at random fault points (the answer to a send lost after
// it executed, 503 -1007 before or after executing, a slow answer, on placing, looking up and cancelling)
// nothing is ever sent twice, one reconcile pass leaves no order unresolved and no venue order unknown to
// us, and the stored fills are the venue's, once each, as the user's trades too. Seeded and replayable:
// ORDERS_FAULT_SEED=<seed> (printed on failure) replays a run; ORDERS_FAULT_POINTS sets how many.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import type { OrderFaultKind } from '../../fakes/binance-orders.ts';
import { startOrdersApp, type OrdersApp, type Trader } from './orders-fixtures.ts';

const POINTS = Number(process.env.ORDERS_FAULT_POINTS ?? 1000);
/** Traders placing at once, each its own share of the points and its own stream of the seed. */
const LANES = 5;
const SEED = Number(process.env.ORDERS_FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** mulberry32: small, seeded, the same sequence for the same seed on every machine. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VENUE_STATUS: Record<string, string> = {
  NEW: 'open',
  PARTIALLY_FILLED: 'partially_filled',
  FILLED: 'filled',
  CANCELED: 'canceled',
  EXPIRED: 'expired',
  REJECTED: 'rejected',
};

interface StoredOrder {
  id: string;
  client_order_id: string;
  status: string;
  filled: string;
  fills: { id: string; amount: string; price: string }[];
}

describe(`orders at ${POINTS} random fault points (ORDERS_FAULT_SEED=${SEED})`, () => {
  let o: OrdersApp;
  let traders: Trader[];
  before(async () => {
    o = await startOrdersApp({
      env: {
        EXCHANGE_TIMEOUT_MS: '150',
        TRADING_MAX_OPEN_ORDERS: 'none',
        TRADING_MAX_ORDERS_PER_MINUTE: 'none',
        TRADING_MAX_ORDER_NOTIONAL: 'none',
        TRADING_PRICE_BAND_PERCENT: 'none',
      },
      fake: { weightLimit: 100_000_000 },
    });
    traders = [];
    for (let i = 0; i < LANES; i++) traders.push(await o.trader({ USDT: '100000000', BTC: '100000', ETH: '1000000' }));
  });
  after(async () => {
    await o?.close();
  });

  it('sends nothing twice, leaves no orphan after one pass, and stores exactly the venue fills', async () => {
    const context = (what: string) => `${what} (replay: ORDERS_FAULT_SEED=${SEED} ORDERS_FAULT_POINTS=${POINTS})`;
    const faults: (OrderFaultKind | null)[] = [null, null, 'drop-after', '503-after', '503-before', 'slow-after'];

    /** One trader's share of the points, from its own stream of the seed: its faults meet its requests only. */
    async function lane(trader: Trader, laneSeed: number, points: number): Promise<void> {
      const draw = random(laneSeed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(draw() * items.length)]!;
      const key = trader.account.apiKey;
      const placed: string[] = [];
      for (let point = 0; point < points; point++) {
        const fault = pick(faults);
        const op = draw();
        const method = op < 0.75 ? pick(['POST', 'POST', 'GET'] as const) : 'DELETE';
        if (fault) o.book.fault(fault, { method, ms: 300, apiKey: key });
        if (op < 0.75 || placed.length === 0) {
          const limit = draw() < 0.5;
          const side = pick(['buy', 'sell'] as const);
          const symbol = pick(['BTC/USDT', 'ETH/USDT']);
          const prices = symbol === 'BTC/USDT' ? ['64000', '65000', '66000'] : ['3100', '3200', '3300'];
          const response = await o.place(trader, {
            symbol,
            side,
            type: limit ? 'limit' : 'market',
            amount: pick(['0.01', '0.02', '0.05']),
            ...(limit ? { price: pick(prices) } : {}),
          });
          assert.equal(response.statusCode, 201, context(`${key} point ${point}: ${response.body}`));
          placed.push(response.json().id);
        } else if (op < 0.9) {
          const response = await o.inject('DELETE', `/api/orders/${pick(placed)}`, trader.headers);
          assert.ok([200, 409].includes(response.statusCode), context(`${key} point ${point}: ${response.body}`));
        } else {
          o.book.cross(pick(['BTCUSDT', 'ETHUSDT']), pick(['3000', '3400', '63000', '67000']));
          if (draw() < 0.05) await o.t.modules.orders.reconcile();
        }
        o.book.clearFaults(key);
      }
    }
    await Promise.all(
      traders.map((trader, i) =>
        lane(trader, SEED + i, Math.floor(POINTS / traders.length) + (i < POINTS % traders.length ? 1 : 0)),
      ),
    );

    // Past every receive window, one pass.
    o.clock.advance(15_000);
    const pass = await o.t.modules.orders.reconcile();
    assert.equal(pass.failed, 0, context('reconcile failures'));

    const venueByClientId = new Map<string, typeof o.book.orders>();
    for (const order of o.book.orders) {
      const list = venueByClientId.get(order.clientOrderId) ?? [];
      list.push(order);
      venueByClientId.set(order.clientOrderId, list);
    }
    let venueFills = 0;
    const ours = new Set<string>();
    for (const trader of traders) {
      let offset = 0;
      const stored: StoredOrder[] = [];
      for (;;) {
        const page = (await o.inject('GET', `/api/orders?limit=500&offset=${offset}`, trader.headers)).json();
        stored.push(...page.orders);
        offset += page.orders.length;
        if (offset >= page.total) break;
      }
      for (const summary of stored) {
        ours.add(summary.client_order_id);
        const order = (await o.inject('GET', `/api/orders/${summary.id}`, trader.headers)).json() as StoredOrder;
        const atVenue = venueByClientId.get(order.client_order_id) ?? [];
        assert.ok(atVenue.length <= 1, context(`order ${order.id} reached the venue ${atVenue.length} times`));
        assert.ok(!['pending', 'unknown'].includes(order.status), context(`order ${order.id} left ${order.status}`));
        const venue = atVenue[0];
        if (!venue) {
          assert.equal(order.status, 'rejected', context(`order ${order.id} never reached the venue`));
          continue;
        }
        assert.equal(order.status, VENUE_STATUS[venue.status], context(`order ${order.id} status`));
        assert.equal(order.filled, new Decimal(venue.executedQty).toFixed(), context(`order ${order.id} filled`));
        assert.deepEqual(
          order.fills.map((f) => [f.id, f.amount, f.price]).sort(),
          venue.fills
            .map((f) => [String(f.tradeId), new Decimal(f.qty).toFixed(), new Decimal(f.price).toFixed()])
            .sort(),
          context(`order ${order.id} fills`),
        );
        venueFills += venue.fills.length;
      }
      const trades = (await o.inject('GET', '/api/exchange/trades?exchange=binance&limit=1000', trader.headers)).json();
      const venueTrades = Object.values(trader.account.trades).flat().length;
      assert.equal(trades.total_records, venueTrades, context('user trades = venue fills'));
    }
    const orphans = o.book.orders.filter((v) => !ours.has(v.clientOrderId));
    assert.equal(orphans.length, 0, context('venue orders we do not know'));
    assert.equal(
      venueFills,
      o.book.orders.reduce((n, v) => n + v.fills.length, 0),
      context('every venue fill'),
    );
  });
});
