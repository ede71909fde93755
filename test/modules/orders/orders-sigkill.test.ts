// A server killed (SIGKILL, a real process) after its order reached the venue and before the answer was
// stored: the order row was committed first, so the restarted server finds it `unknown`, looks it up by
// its client order id as it starts, and completes it with the venue's fills. Nothing is sent again.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startBinanceFake } from '../../fakes/binance.ts';
import { withOrders } from '../../fakes/binance-orders.ts';
import { killStarted, startServer, storage, waitFor } from '../../helpers/processes.ts';
import { TEST_ENCRYPTION_KEY, TEST_JWT_SECRET } from '../../helpers/test-secrets.ts';
import { waitFor as waitUntil } from '../../helpers/wait.ts';
import { callsTo, storeVenueCredentialThrough, twoFactorToken } from './process-fixtures.ts';

describe('an order whose server is killed between send and commit', () => {
  after(killStarted);

  it('is looked up and completed by the restarted server, and sent once', async () => {
    const binance = await startBinanceFake();
    const book = withOrders(binance);
    try {
      const env = {
        ...(await storage()),
        JWT_SECRET: TEST_JWT_SECRET,
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        BINANCE_API_URL: binance.url,
        LIVE_TRADING: 'true',
        EXCHANGE_RATE_LIMIT: 'false',
        EXCHANGE_TIMEOUT_MS: '60000',
      };
      let server = await startServer(env);
      const call = callsTo(() => server.url);
      const token = await twoFactorToken(call, 'killed@example.com');
      const account = binance.addAccount({
        apiKey: 'killed-key-0123456789',
        secret: 'killed-secret-0123456789',
        balances: [{ asset: 'USDT', free: '100000', locked: '0' }],
        trades: {},
      });
      await storeVenueCredentialThrough(call, token, 'binance', account);

      // The venue executes the order and holds its answer; the server dies waiting for it.
      book.fault('slow-after', { ms: 120_000 });
      void call(
        'POST',
        '/api/orders',
        { exchange: 'binance', symbol: 'BTC/USDT', side: 'buy', type: 'market', amount: '0.01', mode: 'live' },
        token,
      ).catch(() => undefined);
      await waitFor(() => book.orders.length === 1, 'the venue to execute the order');
      server.child.kill('SIGKILL');
      await server.exited;

      server = await startServer(env);
      let orders: Record<string, unknown>[] = [];
      await waitUntil(
        async () => {
          orders = (await call('GET', '/api/orders', undefined, token)).json.orders as Record<string, unknown>[];
          return orders.length === 1 && orders[0]!.status === 'filled';
        },
        'the restarted server to complete the order',
        60_000,
        200,
      );
      const detail = await call('GET', `/api/orders/${orders[0]!.id as string}`, undefined, token);
      const fills = detail.json.fills as { id: string; amount: string }[];
      assert.deepEqual(
        fills.map((f) => [f.id, f.amount]),
        [[String(book.orders[0]!.fills[0]!.tradeId), '0.01']],
      );
      assert.equal(book.orders.length, 1);
      assert.equal(detail.json.client_order_id, book.orders[0]!.clientOrderId);
      await server.stop();
    } finally {
      await binance.close();
    }
  });
});
