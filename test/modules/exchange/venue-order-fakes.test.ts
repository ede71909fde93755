// The order endpoints of the Kraken, Coinbase, OKX and Bybit fakes, reached by ccxt's createOrder
// with each venue's client order id: placed with the id, found by it, cancelled, and a malformed id
// refused as the venue refuses it. The orders module plugs these fakes into its own suite.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Exchange } from 'ccxt';
import {
  rewriteUrls,
  signForCoinbaseHost,
  urlRewriter,
  type CcxtClientSettings,
} from '../../../src/modules/exchange/adapters/ccxt-clients.ts';
import { ordersOf, type VenueAccount } from '../../fakes/venue-loopback.ts';
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
        options: c.options,
      });
      const settings = { apiUrls: { [v.venue]: fake.url } } as unknown as CcxtClientSettings;
      const hostname = (exchange as unknown as { hostname?: string }).hostname;
      rewriteUrls(exchange.urls.api, urlRewriter(v.venue, hostname, settings)!);
      if (v.venue === 'coinbase') signForCoinbaseHost(exchange, fake.url);
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

    // Coinbase takes any client_order_id: it has no such case.
    const bad = c.bad;
    if (bad)
      it('refuses a client order id the venue would refuse', async () => {
        await assert.rejects(exchange.createOrder('BTC/USDT', 'limit', 'buy', 0.001, 60000, { [c.param]: bad }));
        assert.ok(!ordersOf(account).some((o) => o.clientId === bad));
      });
  });
}
