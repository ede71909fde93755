// The property of the one door (issue 39 part 7), on every venue of the table (issue 43): at random fault
// points (the answer to a send lost after it executed, the venue's 5xx before or after executing, a slow
// answer, on placing, looking up and cancelling) nothing is ever sent twice, one reconcile pass leaves no
// order unresolved (but for a lookup a starved machine timed out, which a second pass answers) and no venue
// order unknown to us, and the stored fills are the venue's, once each, as the
// user's trades too. Binance runs five traders at once (its fake's faults meet one key's requests only);
// Kraken, Coinbase, OKX and Bybit one trader each, all venues at the same time. Seeded and replayable:
// ORDERS_FAULT_SEED=<seed> (printed on failure) replays a run; ORDERS_FAULT_POINTS sets Binance's points,
// ORDERS_FAULT_VENUE_POINTS each other venue's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import { clientOrderIdRule } from '../../../src/platform/client-order-ids.ts';
import { SIGN_WITHIN_MS } from '../../../src/platform/order-venue.ts';
import { FAILURE_BREAKER } from '../../../src/platform/venue-budget/venue-budget.ts';
import type { OrderFaultKind } from '../../fakes/binance-orders.ts';
import { ordersOf, type VenueAccount, type VenueOrder } from '../../fakes/venue-loopback.ts';
import { seeded } from '../../helpers/seeded.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { CONFORMANCE_VENUES, conformanceAccount, type ConformanceFake } from '../exchange/conformance-venues.ts';
import { startOrdersApp, type OrdersApp, type Trader } from './orders-fixtures.ts';

const POINTS = Number(process.env.ORDERS_FAULT_POINTS ?? 1000);
const VENUE_POINTS = Number(process.env.ORDERS_FAULT_VENUE_POINTS ?? 40);
/** Binance traders placing at once, each its own share of the points and its own stream of the seed. */
const BINANCE_LANES = 5;
const SEED = Number(process.env.ORDERS_FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));

const BINANCE_STATUS: Record<string, string> = {
  NEW: 'open',
  PARTIALLY_FILLED: 'partially_filled',
  FILLED: 'filled',
  CANCELED: 'canceled',
  EXPIRED: 'expired',
  REJECTED: 'rejected',
};

const venueStatus = (o: VenueOrder) =>
  o.status === 'open' && !new Decimal(o.filled).isZero() ? 'partially_filled' : o.status;

type Op = 'place' | 'lookup' | 'cancel';
const BINANCE_METHOD = { place: 'POST', lookup: 'GET', cancel: 'DELETE' } as const;

/** Our venue timeout, and a slow answer past it. */
const TIMEOUT_MS = 400;
const SLOW_MS = 900;

/** One venue order as the checks compare it: what the venue holds. */
interface AtVenue {
  clientId: string;
  status: string;
  filled: string;
  fills: string[][];
}

/** A trader placing on one venue, and how its venue is faulted, moved and read. */
interface Lane {
  exchange: string;
  trader: Trader;
  points: number;
  seed: number;
  /** The next `op` request of this trader meets the fault. */
  fault(kind: OrderFaultKind, op: Op): void;
  clearFaults(): void;
  /** The last price of the symbol went through `price`. */
  cross(symbol: 'BTC/USDT' | 'ETH/USDT', price: string): void;
  /** Every order the venue holds for this trader. */
  orders(): AtVenue[];
  /** Fills the venue holds for this trader. */
  trades(): number;
}

interface StoredOrder {
  id: string;
  client_order_id: string;
  status: string;
  filled: string;
  fills: { id: string; amount: string; price: string }[];
}

describe(`orders on every venue at random fault points (ORDERS_FAULT_SEED=${SEED})`, () => {
  let o: OrdersApp;
  const fakes = new Map<string, ConformanceFake>();
  const lanes: Lane[] = [];

  before(async () => {
    for (const v of CONFORMANCE_VENUES) fakes.set(v.venue, await v.start());
    o = await startOrdersApp({
      env: {
        EXCHANGE_TIMEOUT_MS: String(TIMEOUT_MS),
        EXCHANGE_API_URLS: JSON.stringify(Object.fromEntries([...fakes].map(([venue, fake]) => [venue, fake.url]))),
        ...Object.assign({}, ...CONFORMANCE_VENUES.map((v) => v.env ?? {})),
        TRADING_MAX_OPEN_ORDERS: 'none',
        TRADING_MAX_ORDERS_PER_MINUTE: 'none',
        TRADING_MAX_ORDER_NOTIONAL: 'none',
        TRADING_PRICE_BAND_PERCENT: 'none',
        // Each trader's set-up moves the clock 30 s (a fresh TOTP step), nine traders 270 s, and the
        // points run on real time after it: on a slow machine the first traders' second factor and
        // tokens would outlive the production windows (10 minutes, 15 minutes) before the run ends.
        // Those windows have tests of their own; here they only need to outlast the run.
        STEP_UP_MAX_AGE_MINUTES: '120',
        ACCESS_TOKEN_TTL_SECONDS: '7200',
      },
      fake: { weightLimit: 100_000_000 },
    });
    for (let i = 0; i < BINANCE_LANES; i++) {
      const trader = await o.trader({ USDT: '100000000', BTC: '100000', ETH: '1000000' });
      const key = trader.account.apiKey;
      lanes.push({
        exchange: 'binance',
        trader,
        points: Math.floor(POINTS / BINANCE_LANES) + (i < POINTS % BINANCE_LANES ? 1 : 0),
        seed: SEED + i,
        fault: (kind, op) => o.book.fault(kind, { method: BINANCE_METHOD[op], ms: SLOW_MS, apiKey: key }),
        clearFaults: () => o.book.clearFaults(key),
        cross: (symbol, price) => o.book.cross(symbol.replace('/', ''), price),
        orders: () =>
          o.book.of(key).map((v) => ({
            clientId: v.clientOrderId,
            status: BINANCE_STATUS[v.status]!,
            filled: new Decimal(v.executedQty).toFixed(),
            fills: v.fills.map((f) => [
              String(f.tradeId),
              new Decimal(f.qty).toFixed(),
              new Decimal(f.price).toFixed(),
            ]),
          })),
        trades: () => Object.values(trader.account.trades).flat().length,
      });
    }
    for (const [i, v] of CONFORMANCE_VENUES.entries()) {
      const fake = fakes.get(v.venue)!;
      // Fills are the orders' only: the venue's history holds nothing else to compare with.
      const account: VenueAccount = fake.addAccount({ ...conformanceAccount(v, 0), fills: [] });
      const trader = await o.trader();
      await storeVenueCredential(o.t.app, trader, v.venue, account);
      lanes.push({
        exchange: v.venue,
        trader,
        points: VENUE_POINTS,
        seed: SEED + BINANCE_LANES + i,
        fault: (kind, op) => fake.fault(kind, { ...v.orders[op], ms: SLOW_MS, reply5xx: v.outage }),
        clearFaults: () => fake.clearFailures(),
        cross: (symbol, price) => fake.cross(symbol.split('/')[0]!, symbol.split('/')[1]!, price),
        orders: () =>
          ordersOf(account).map((order) => ({
            clientId: order.clientId,
            status: venueStatus(order),
            filled: new Decimal(order.filled).toFixed(),
            fills: account.fills
              .filter((f) => f.orderId === order.id)
              .map((f) => [f.id, new Decimal(f.amount).toFixed(), new Decimal(f.price).toFixed()]),
          })),
        trades: () => account.fills.length,
      });
    }
  });
  before(async () => {
    // Each venue's markets are loaded once, before any fault: an order's checks read them.
    for (const lane of lanes.filter((l, i) => lanes.findIndex((m) => m.exchange === l.exchange) === i)) {
      let loaded = 0;
      for (let attempt = 0; attempt < 3 && loaded !== 200; attempt++)
        loaded = (await o.inject('GET', `/api/exchange/markets?exchange=${lane.exchange}`, lane.trader.headers))
          .statusCode;
      assert.equal(loaded, 200, `${lane.exchange} markets`);
    }
  });
  after(async () => {
    await o?.close();
    for (const fake of fakes.values()) await fake.close();
  });

  it('sends nothing twice, leaves no orphan after one pass, and stores exactly the venue fills', async () => {
    const context = (what: string) =>
      `${what} (replay: ORDERS_FAULT_SEED=${SEED} ORDERS_FAULT_POINTS=${POINTS} ORDERS_FAULT_VENUE_POINTS=${VENUE_POINTS})`;
    const faults: (OrderFaultKind | null)[] = [null, null, 'drop-after', '503-after', '503-before', 'slow-after'];

    /** One trader's points, from its own stream of the seed: its faults meet its requests only. */
    async function run(lane: Lane): Promise<void> {
      const draw = seeded(lane.seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(draw() * items.length)]!;
      const label = `${lane.exchange} ${lane.trader.email}`;
      const placed: string[] = [];
      for (let point = 0; point < lane.points; point++) {
        const fault = pick(faults);
        const op = draw();
        const target: Op = op < 0.75 ? pick(['place', 'place', 'lookup'] as const) : 'cancel';
        if (fault) lane.fault(fault, target);
        if (op < 0.75 || placed.length === 0) {
          const limit = draw() < 0.5;
          const side = pick(['buy', 'sell'] as const);
          const symbol = pick(['BTC/USDT', 'ETH/USDT'] as const);
          const prices = symbol === 'BTC/USDT' ? ['64000', '65000', '66000'] : ['3100', '3200', '3300'];
          const response = await o.place(lane.trader, {
            exchange: lane.exchange,
            symbol,
            side,
            type: limit ? 'limit' : 'market',
            amount: pick(['0.01', '0.02', '0.05']),
            ...(limit ? { price: pick(prices) } : {}),
          });
          assert.equal(response.statusCode, 201, context(`${label} point ${point}: ${response.body}`));
          placed.push(response.json().id);
        } else if (op < 0.9) {
          const response = await o.inject('DELETE', `/api/orders/${pick(placed)}`, lane.trader.headers);
          assert.ok([200, 409].includes(response.statusCode), context(`${label} point ${point}: ${response.body}`));
        } else {
          lane.cross(pick(['BTC/USDT', 'ETH/USDT'] as const), pick(['3000', '3400', '63000', '67000']));
          if (draw() < 0.05) await o.t.modules.orders.reconcile();
        }
        lane.clearFaults();
      }
    }
    await Promise.all(lanes.map(run));

    // Past every venue's receive window (and the late signing it allows for), and past the pause of a breaker the run's 5xx answers may have
    // opened, one pass: every order it looks up is answered.
    o.clock.advance(
      Math.max(
        15_000,
        FAILURE_BREAKER.pauseMs,
        ...lanes.map((l) => clientOrderIdRule(l.exchange).receiveWindowMs + SIGN_WITHIN_MS),
      ) + 1_000,
    );
    const unansweredIn = async () => {
      const logged = o.t.logLines().length;
      const pass = await o.t.modules.orders.reconcile();
      assert.equal(pass.failed, 0, context('reconcile failures'));
      const reasons = o.t
        .logLines()
        .slice(logged)
        .filter((line) => String(line.msg).startsWith('the venue left an order unanswered'))
        .map((line) => `${line.exchange}: ${line.reason}`);
      assert.equal(reasons.length, pass.unanswered, context('every unanswered order is logged'));
      return reasons;
    };
    // No fault is set any more: a lookup can only go unanswered if this machine, starved of CPU by other
    // work, could not carry the fake's answer within our 400 ms (seen once in a loaded run: one Kraken
    // lookup). That is the machine's, not the door's: such a lookup is asked again in the next pass, as in
    // production. Any other reason, or a second pass still unanswered, fails.
    const unanswered = await unansweredIn();
    const notTheMachine = unanswered.filter((reason) => !reason.endsWith(`request timed out (${TIMEOUT_MS} ms)`));
    assert.deepEqual(notTheMachine, [], context('orders the venue left unanswered in the pass'));
    if (unanswered.length > 0)
      assert.deepEqual(await unansweredIn(), [], context(`a second pass after ${unanswered.join('; ')}`));

    // Each trader's orders read back at once, as they were placed.
    await Promise.all(
      lanes.map(async (lane) => {
        const label = `${lane.exchange} ${lane.trader.email}`;
        const venueOrders = lane.orders();
        const venueByClientId = new Map<string, AtVenue[]>();
        for (const order of venueOrders)
          venueByClientId.set(order.clientId, [...(venueByClientId.get(order.clientId) ?? []), order]);
        const stored: StoredOrder[] = [];
        for (;;) {
          const page = (
            await o.inject('GET', `/api/orders?limit=500&offset=${stored.length}`, lane.trader.headers)
          ).json();
          stored.push(...page.orders);
          if (page.orders.length === 0 || stored.length >= page.total) break;
        }
        const ours = new Set<string>();
        let venueFills = 0;
        for (const summary of stored) {
          ours.add(summary.client_order_id);
          const order = (await o.inject('GET', `/api/orders/${summary.id}`, lane.trader.headers)).json() as StoredOrder;
          const atVenue = venueByClientId.get(order.client_order_id) ?? [];
          assert.ok(
            atVenue.length <= 1,
            context(`${label}: order ${order.id} reached the venue ${atVenue.length} times`),
          );
          assert.ok(
            !['pending', 'unknown'].includes(order.status),
            context(`${label}: order ${order.id} left ${order.status}`),
          );
          const venue = atVenue[0];
          if (!venue) {
            assert.equal(order.status, 'rejected', context(`${label}: order ${order.id} never reached the venue`));
            continue;
          }
          assert.equal(order.status, venue.status, context(`${label}: order ${order.id} status`));
          assert.equal(order.filled, venue.filled, context(`${label}: order ${order.id} filled`));
          assert.deepEqual(
            order.fills.map((f) => [f.id, f.amount, f.price]).sort(),
            [...venue.fills].sort(),
            context(`${label}: order ${order.id} fills`),
          );
          venueFills += venue.fills.length;
        }
        const trades = (
          await o.inject('GET', `/api/exchange/trades?exchange=${lane.exchange}&limit=1000`, lane.trader.headers)
        ).json();
        assert.equal(trades.total_records, lane.trades(), context(`${label}: user trades = venue fills`));
        const orphans = venueOrders.filter((v) => !ours.has(v.clientId));
        assert.equal(orphans.length, 0, context(`${label}: venue orders we do not know`));
        assert.equal(
          venueFills,
          venueOrders.reduce((n, v) => n + v.fills.length, 0),
          context(`${label}: every venue fill`),
        );
      }),
    );
  });
});
