// A server killed (SIGKILL, a real process) after its orders reached every venue of the table and before
// their answers were stored (orders-sigkill.test.ts for Binance): the rows were committed first, so the
// restarted server finds them `unknown`, looks each up by its client order id in its venue's own way as
// it starts, and completes it. Nothing is sent again.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { killStarted, startServer, storage, waitFor } from '../../helpers/processes.ts';
import { TEST_ENCRYPTION_KEY, TEST_JWT_SECRET } from '../../helpers/test-secrets.ts';
import { waitFor as waitUntil } from '../../helpers/wait.ts';
import { callsTo, storeVenueCredentialThrough, twoFactorToken } from './process-fixtures.ts';
import { ordersOf, type VenueAccount } from '../../fakes/venue-loopback.ts';
import { CONFORMANCE_VENUES, conformanceAccount, type ConformanceFake } from '../exchange/conformance-venues.ts';

/** The server's venue bound: every call it sent is still waiting for its answer when it is killed. */
const TIMEOUT_MS = 8_000;

describe('orders on every venue whose server is killed between send and commit', () => {
  after(killStarted);

  it('are looked up and completed by the restarted server, each sent once', async () => {
    const fakes = new Map<string, ConformanceFake>();
    for (const v of CONFORMANCE_VENUES) fakes.set(v.venue, await v.start());
    try {
      const env = {
        ...(await storage()),
        JWT_SECRET: TEST_JWT_SECRET,
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        EXCHANGE_API_URLS: JSON.stringify(Object.fromEntries([...fakes].map(([venue, fake]) => [venue, fake.url]))),
        ...Object.assign({}, ...CONFORMANCE_VENUES.map((v) => v.env ?? {})),
        LIVE_TRADING: 'true',
        EXCHANGE_RATE_LIMIT: 'false',
        // Long enough for the held answers to outlive the server (asserted below), short enough that the
        // Kraken key's turn the killed server held (leased for a call's bound and a margin, decision 280,
        // in Redis when set) has expired soon after the restarted server starts: it waits that long.
        EXCHANGE_TIMEOUT_MS: String(TIMEOUT_MS),
        TRADING_PRICE_BAND_PERCENT: 'none',
      };
      let server = await startServer(env);
      const call = callsTo(() => server.url);
      const token = await twoFactorToken(call, 'killed-venues@example.com');

      const accounts = new Map<string, VenueAccount>();
      for (const v of CONFORMANCE_VENUES) {
        const account = fakes.get(v.venue)!.addAccount(conformanceAccount(v, 0));
        accounts.set(v.venue, account);
        await storeVenueCredentialThrough(call, token, v.venue, account);
      }

      // Each venue executes its order and holds the answer; the server dies waiting for them.
      const sending = performance.now();
      for (const v of CONFORMANCE_VENUES) {
        fakes.get(v.venue)!.fault('slow-after', { path: v.orders.place.path, ms: 120_000, reply5xx: v.outage });
        void call(
          'POST',
          '/api/orders',
          {
            exchange: v.venue,
            symbol: 'BTC/USDT',
            side: 'buy',
            type: 'limit',
            amount: '0.001',
            price: '60000',
            mode: 'live',
          },
          token,
        ).catch(() => undefined);
      }
      await waitFor(
        () => CONFORMANCE_VENUES.every((v) => ordersOf(accounts.get(v.venue)!).length === 1),
        'every venue to execute its order',
      );
      server.child.kill('SIGKILL');
      await server.exited;
      // No call of the killed server reached its bound (and was then looked up by that server itself).
      const held = performance.now() - sending;
      assert.ok(held < TIMEOUT_MS, `the server was killed ${Math.round(held)} ms after its orders were sent`);

      server = await startServer(env);
      let orders: Record<string, unknown>[] = [];
      await waitUntil(
        async () => {
          orders = (await call('GET', '/api/orders', undefined, token)).json.orders as Record<string, unknown>[];
          return orders.length === CONFORMANCE_VENUES.length && orders.every((o) => o.status === 'open');
        },
        'the restarted server to complete every order',
        60_000,
        200,
      );
      for (const v of CONFORMANCE_VENUES) {
        const ours = orders.find((o) => o.exchange === v.venue)!;
        const atVenue = ordersOf(accounts.get(v.venue)!);
        assert.equal(atVenue.length, 1, `${v.venue}: sent once`);
        assert.equal(ours.client_order_id, atVenue[0]!.clientId, `${v.venue}: the venue's order is ours`);
        assert.equal(ours.venue_order_id, atVenue[0]!.id, `${v.venue}: completed with the venue's id`);
      }
      await server.stop();
    } finally {
      for (const fake of fakes.values()) await fake.close();
    }
  });
});
