// The order endpoints of the Kraken, Coinbase, OKX and Bybit fakes, reached by ccxt's createOrder
// with each venue's client order id: placed with the id, found by it, cancelled, and a malformed id
// refused as the venue refuses it; a market order filled at once and a resting limit filled when the
// price crosses it, each fill in the venue's trade history under the venue's trade id and in the order
// found by its client id; Coinbase's listing of orders pages as Coinbase's does. The orders module plugs
// these fakes into its own suite.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Exchange } from 'ccxt';
import { signForCoinbaseHost, type CcxtClientSettings } from '../../../src/modules/exchange/adapters/ccxt-clients.ts';
import { rewriteUrls, urlRewriter } from '../../../src/modules/exchange/adapters/ccxt-urls.ts';
import { findByClientId } from '../../../src/modules/exchange/adapters/venue-order-lookups.ts';
import { ordersOf, placeOrder, type VenueAccount } from '../../fakes/venue-loopback.ts';
import { CONFORMANCE_VENUES, conformanceAccount, type ConformanceFake } from './conformance-venues.ts';

/** Per venue: its ccxt options, the client id parameter, a valid id and one the venue refuses. */
const ORDER_CASES = {
  kraken: { options: {}, param: 'cl_ord_id', good: 'kr-order-0001', bad: 'x'.repeat(19) },
  coinbase: { options: {}, param: 'client_order_id', good: 'cb-order-0001', bad: undefined },
  okx: { options: { fetchMarkets: { types: ['spot'] } }, param: 'clOrdId', good: 'okxOrder0001', bad: 'not-alnum-id' },
  bybit: {
    options: { fetchMarkets: { types: ['spot'] }, defaultType: 'spot' },
    param: 'orderLinkId',
    good: 'by-order-0001',
    bad: 'y'.repeat(37),
  },
} as const;

for (const v of CONFORMANCE_VENUES) {
  const c = ORDER_CASES[v.venue];
  describe(`order endpoints of the ${v.venue} fake`, () => {
    let fake: ConformanceFake;
    let account: VenueAccount;
    let exchange: Exchange;

    before(async () => {
      fake = await v.start();
      account = fake.addAccount(conformanceAccount(v, 0));
      const ccxt = (await import('ccxt')) as unknown as Record<string, new (config: object) => Exchange>;
      exchange = new ccxt[v.venue]!({
        apiKey: account.apiKey,
        secret: account.secret,
        password: account.passphrase,
        enableLastJsonResponse: true,
        // The fakes' limits are raised for the suite (conformance-venues.ts); ccxt's spacing would only slow it.
        enableRateLimit: false,
        options: c.options,
      });
      const settings = { apiUrls: { [v.venue]: fake.url } } as unknown as CcxtClientSettings;
      const hostname = (exchange as unknown as { hostname?: string }).hostname;
      rewriteUrls(exchange.urls.api, urlRewriter(v.venue, hostname, settings)!);
      if (v.venue === 'coinbase') signForCoinbaseHost(exchange, fake.url);
      if (v.venue === 'kraken') {
        // ccxt's Kraken nonce is the clock's milliseconds: two calls within one millisecond carry the same
        // nonce, which Kraken (and its fake) refuse. The app numbers a key's calls itself (decision 280);
        // this plain client does the same.
        let last = 0;
        (exchange as unknown as { nonce: () => number }).nonce = () => {
          last = Math.max(Date.now(), last + 1);
          return last;
        };
      }
      await exchange.loadMarkets();
    });
    after(() => fake.close());

    it(`places an order with ${c.param}, finds it by that id and cancels it`, async () => {
      const placed = await exchange.createOrder('BTC/USDT', 'limit', 'buy', 0.001, 60000, { [c.param]: c.good });
      const [stored] = ordersOf(account);
      assert.equal(stored?.clientId, c.good, `the fake received ${c.param}`);
      assert.equal(placed.id, stored!.id);
      const body = fake.requests.at(-1)!.body;
      assert.ok(body.includes(c.good), 'sent in the venue request');
      if (v.venue === 'okx') {
        const found = await exchange.fetchOrder('', 'BTC/USDT', { clOrdId: c.good });
        assert.equal(found.clientOrderId, c.good);
        await exchange.cancelOrder('', 'BTC/USDT', { clOrdId: c.good });
      } else if (v.venue === 'bybit') {
        const found = await exchange.fetchOpenOrder(placed.id, 'BTC/USDT');
        assert.equal(found.clientOrderId, c.good);
        await exchange.cancelOrder(placed.id, 'BTC/USDT');
      } else if (v.venue === 'kraken') {
        const open = await exchange.fetchOpenOrders(undefined, undefined, undefined, { cl_ord_id: c.good });
        assert.deepEqual(
          open.map((o) => [o.id, o.clientOrderId, o.symbol]),
          [[placed.id, c.good, 'BTC/USDT']],
        );
        await exchange.cancelOrder('', undefined, { cl_ord_id: c.good });
      } else {
        const found = await exchange.fetchOrder(placed.id, 'BTC/USDT');
        assert.equal(found.clientOrderId, c.good);
        const again = await exchange.createOrder('BTC/USDT', 'limit', 'buy', 0.001, 60000, { [c.param]: c.good });
        assert.equal(again.id, placed.id, 'a reused client_order_id answers the earlier order');
        await exchange.cancelOrder(placed.id, 'BTC/USDT');
      }
      assert.equal(ordersOf(account)[0]!.status, 'canceled');
    });

    /** The order found by its client id, and the venue's own trades of it (its fills as ccxt reads them). */
    async function filledAtVenue(clientId: string) {
      const found = await findByClientId(exchange, v.venue, 'BTC/USDT', clientId);
      assert.ok(found, `found by ${c.param}`);
      const atVenue = ordersOf(account).find((o) => o.clientId === clientId)!;
      const mine = account.fills.filter((f) => f.orderId === atVenue.id);
      const history = await exchange.fetchMyTrades('BTC/USDT', Date.now() - 3_600_000);
      const listed = history.filter((t) => t.order === found.id);
      return { found, atVenue, mine, listed };
    }

    it('fills a market order at once: the order found by its client id and the trade history show the fills', async () => {
      const id = `${c.good.slice(0, -1)}m`;
      const side = 'sell';
      await exchange.createOrder('BTC/USDT', 'market', side, 0.002, undefined, { [c.param]: id });
      const { found, atVenue, mine, listed } = await filledAtVenue(id);
      assert.equal(atVenue.status, 'filled');
      assert.equal(mine.length, 2, 'two fills, at the two best levels');
      assert.equal(found.status, 'closed', JSON.stringify(found.info));
      assert.equal(found.filled, 0.002);
      assert.ok(found.average && Math.abs(found.average - 64999.9) < 1e-6, String(found.average));
      assert.deepEqual(listed.map((t) => t.id).sort(), mine.map((f) => f.id).sort(), 'under the venue trade ids');
      assert.equal(
        listed.reduce((sum, t) => sum + (t.amount ?? 0), 0),
        0.002,
      );
      for (const t of listed) {
        assert.equal(t.side, side);
        assert.ok((t.fee?.cost ?? 0) > 0, `a fee: ${JSON.stringify(t.info)}`);
      }
      // ccxt asks an order's own trades by its trade ids on Kraken, by the order id on OKX and Bybit;
      // Coinbase's has none (its fills are asked by order_id).
      const traded =
        v.venue === 'coinbase'
          ? await exchange.fetchMyTrades('BTC/USDT', undefined, undefined, { order_id: found.id })
          : await exchange.fetchOrderTrades(String(found.id), 'BTC/USDT', undefined, undefined, {
              ...(v.venue === 'kraken' ? { trades: mine.map((f) => f.id) } : {}),
            });
      assert.deepEqual(traded.map((t) => t.id).sort(), mine.map((f) => f.id).sort());
    });

    it('rests a limit order until the price crosses it, then fills it at its price as a maker', async () => {
      const id = `${c.good.slice(0, -1)}l`;
      await exchange.createOrder('BTC/USDT', 'limit', 'buy', 0.001, 60000, { [c.param]: id });
      let { found, mine } = await filledAtVenue(id);
      assert.equal(found.status, 'open');
      assert.equal(mine.length, 0);
      assert.equal(fake.cross('BTC', 'USDT', '61000'), 0, 'not crossed above its price');
      assert.equal(fake.cross('BTC', 'USDT', '59999'), 1);
      ({ found, mine } = await filledAtVenue(id));
      const { listed } = await filledAtVenue(id);
      assert.equal(found.status, 'closed');
      assert.equal(found.filled, 0.001);
      assert.deepEqual(
        listed.map((t) => [t.id, t.price, t.amount, t.takerOrMaker]),
        [[mine[0]!.id, 60000, 0.001, 'maker']],
      );
    });

    if (v.venue === 'coinbase')
      it('lists orders newest first, 100 a page unless asked, with has_next and a cursor, by product and creation time', async () => {
        type Listed = { orders: { client_order_id: string }[]; has_next: boolean; cursor: string };
        const api = exchange as unknown as Record<
          'v3PrivateGetBrokerageOrdersHistoricalBatch',
          (r: object) => Promise<Listed>
        >;
        const page = (request: object) => api.v3PrivateGetBrokerageOrdersHistoricalBatch.call(exchange, request);
        const list = async (request: object) => (await page(request)).orders.map((o) => o.client_order_id);
        await new Promise((resolve) => setTimeout(resolve, 5));
        const since = new Date().toISOString();
        const order = {
          base: 'BTC',
          quote: 'USDT',
          side: 'buy',
          type: 'limit',
          amount: '0.001',
          price: '50000',
        } as const;
        for (let i = 0; i < 150; i += 1) placeOrder(account, { ...order, clientId: `page-${i}` }, randomUUID());
        placeOrder(account, { ...order, base: 'ETH', price: '1000', clientId: 'eth-1' }, randomUUID());
        const newest = Array.from({ length: 150 }, (_, i) => `page-${149 - i}`);

        const first = await page({ product_ids: ['BTC-USDT'], start_date: since });
        assert.deepEqual(
          first.orders.map((o) => o.client_order_id),
          newest.slice(0, 100),
        );
        assert.equal(first.has_next, true);
        const second = await page({ product_ids: ['BTC-USDT'], start_date: since, cursor: first.cursor });
        assert.deepEqual(
          second.orders.map((o) => o.client_order_id),
          newest.slice(100),
        );
        assert.deepEqual([second.has_next, second.cursor], [false, '']);
        assert.deepEqual(await list({ product_ids: ['BTC-USDT'], start_date: since, limit: 5000 }), newest);
        // The orders of the tests above, created before `since` (end_date is exclusive).
        assert.deepEqual(await list({ product_ids: ['BTC-USDT'], end_date: since }), [
          `${c.good.slice(0, -1)}l`,
          `${c.good.slice(0, -1)}m`,
          c.good,
        ]);
        const [last] = ordersOf(account).slice(-2);
        assert.deepEqual(await list({ order_ids: [last!.id] }), ['page-149']);
        // ccxt's fetchOrders asks ccxt's `product_id`, `start_date` from its `since`.
        const viaCcxt = await exchange.fetchOrders('ETH/USDT', Date.parse(since));
        assert.deepEqual(
          viaCcxt.map((o) => o.clientOrderId),
          ['eth-1'],
        );
        await assert.rejects(page({ start_date: 'yesterday' }), /start_date/);
      });

    // Coinbase takes any client_order_id: it has no such case.
    const bad = c.bad;
    if (bad)
      it('refuses a client order id the venue would refuse', async () => {
        await assert.rejects(exchange.createOrder('BTC/USDT', 'limit', 'buy', 0.001, 60000, { [c.param]: bad }));
        assert.ok(!ordersOf(account).some((o) => o.clientId === bad));
      });
  });
}
