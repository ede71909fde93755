// A server killed (SIGKILL, a real process) after a fill past the user's daily loss limit was stored and before
// its daily loss check halted the user (decision 1030): the check was written owed in the fill's own statement,
// so the restarted server's start-up pass makes it, and the user's next order is refused (423). The process's
// database goes through a loopback TCP proxy, which kills the server as the check's read of the day's fills
// goes out: PostgreSQL only (an embedded database has no connection to watch).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startBinanceFake } from '../../fakes/binance.ts';
import { withOrders } from '../../fakes/binance-orders.ts';
import { startTcpProxy } from '../../fakes/tcp-proxy.ts';
import { killStarted, startServer, storage } from '../../helpers/processes.ts';
import { withoutPostgres } from '../../helpers/services.ts';
import { TEST_ENCRYPTION_KEY, TEST_JWT_SECRET } from '../../helpers/test-secrets.ts';
import { waitFor as waitUntil } from '../../helpers/wait.ts';
import { callsTo, storeVenueCredentialThrough, twoFactorToken } from './process-fixtures.ts';

const NO_POSTGRES = withoutPostgres(
  "the server's database goes through a TCP proxy in front of a real server (DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)",
);

describe('a daily loss check whose server is killed after the fill', { skip: NO_POSTGRES }, () => {
  after(killStarted);

  it('is made by the restarted server as it starts: the user is halted and the next order refused', async () => {
    const binance = await startBinanceFake();
    const book = withOrders(binance);
    const stored = await storage();
    const url = new URL(stored.DATABASE_URL!);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    try {
      const env = {
        ...stored,
        JWT_SECRET: TEST_JWT_SECRET,
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        BINANCE_API_URL: binance.url,
        LIVE_TRADING: 'true',
        EXCHANGE_RATE_LIMIT: 'false',
        EXCHANGE_TIMEOUT_MS: '60000',
      };
      let server = await startServer({ ...env, DATABASE_URL: proxy.url(url.toString()) });
      const call = callsTo(() => server.url);
      const token = await twoFactorToken(call, 'loss-killed@example.com');
      const account = binance.addAccount({
        apiKey: 'loss-killed-key-0123456789',
        secret: 'loss-killed-secret-0123456789',
        balances: [
          { asset: 'USDT', free: '100000', locked: '0' },
          { asset: 'BTC', free: '1', locked: '0' },
        ],
        trades: {},
      });
      await storeVenueCredentialThrough(call, token, 'binance', account);
      const limits = await call('PUT', '/api/trading/limits', { daily_loss_limit: '5' }, token);
      assert.equal(limits.status, 200, JSON.stringify(limits.json));
      const order = (side: 'buy' | 'sell', amount: string) =>
        call(
          'POST',
          '/api/orders',
          { exchange: 'binance', symbol: 'BTC/USDT', side, type: 'market', amount, mode: 'live' },
          token,
        );
      const bought = await order('buy', '0.01');
      assert.equal(bought.json.status, 'filled', JSON.stringify(bought.json));

      // The sell realizes a loss past the limit; the server dies as its check reads the day's fills.
      const symbol = binance.symbols.find((s) => s.symbol === 'BTCUSDT')!;
      symbol.price = '64000.00';
      let killed = false;
      proxy.tap((chunk) => {
        if (killed || !chunk.includes('from "order_fills" inner join "orders"')) return;
        killed = true;
        server.child.kill('SIGKILL');
      });
      await order('sell', '0.009').catch(() => undefined);
      await server.exited;
      proxy.tap();
      assert.ok(killed, "the server was killed at its check's read");
      assert.equal(book.orders.length, 2, 'the sell reached the venue');

      server = await startServer(env);
      await waitUntil(
        async () => (await call('GET', '/api/trading/status', undefined, token)).json.halted === true,
        "the restarted server's start-up pass to halt the user",
        60_000,
        200,
      );
      const status = (await call('GET', '/api/trading/status', undefined, token)).json;
      assert.match(String(status.reason), /daily_loss_limit 5/);
      assert.equal((await order('buy', '0.001')).status, 423);
      const orders = (await call('GET', '/api/orders', undefined, token)).json.orders as { status: string }[];
      assert.deepEqual(
        orders.map((o) => o.status),
        ['filled', 'filled'],
      );
      assert.equal(book.orders.length, 2, 'nothing sent again');
      await server.stop();
    } finally {
      await proxy.close();
      await binance.close();
    }
  });
});
