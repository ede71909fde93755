// The admin user list's trading figures through the real wiring: trades and balances synced from the
// venue fakes by the exchange module, read by the admin module through the port app.ts passes it.
// (users-list.test.ts checks with a stand-in that the port is asked once per page.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { binanceTrade } from '../../fakes/binance-shapes.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { addAccount, startVenueFakes, type VenueFakes } from '../exchange/venue-fakes.ts';

describe('admin: users with their trading figures, through the exchange module', () => {
  let fakes: VenueFakes;
  let t: TestApp;
  let admin: TestUser;

  before(async () => {
    fakes = await startVenueFakes();
    t = await buildTestApp({ env: fakes.env() });
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t?.close();
    await fakes?.close();
  });

  /** Stores a key of `fields`' account for `user`, then syncs its balances and its BTCUSDT trades. */
  async function trade(user: TestUser, fields: Parameters<typeof addAccount>[1] = {}): Promise<number> {
    const account = addAccount(fakes.binanceus, fields);
    await storeVenueCredential(t.app, user, 'binanceus', account);
    const post = (url: string) => t.app.inject({ method: 'POST', url, headers: user.headers });
    assert.equal((await post('/api/exchange/balance/sync?exchange=binanceus')).json().success, true);
    return (await post('/api/exchange/trades/sync?exchange=binanceus&symbol=BTCUSDT')).json().trades_synced;
  }

  it("GET /api/admin/users and /api/admin/users/{id} show each user's stored trades and balance value", async () => {
    const first = await signIn(t.app, t.database);
    const second = await signIn(t.app, t.database);
    const idle = await signIn(t.app, t.database);
    // The default account: 2 BTCUSDT trades; 1000.1 USDT, and BTC and ETH the platform has no USD price for yet.
    assert.equal(await trade(first), 2);
    const day = (d: number) => Date.UTC(2026, 0, d, 10);
    assert.equal(
      await trade(second, {
        balances: [{ asset: 'USDT', free: '250.25', locked: '10.00' }],
        trades: {
          BTCUSDT: [201, 202, 203].map((id, i) =>
            binanceTrade({
              symbol: 'BTCUSDT',
              id,
              price: '64000.00',
              qty: '0.00100000',
              isBuyer: i % 2 === 0,
              time: day(5 + i),
            }),
          ),
        },
      }),
      3,
    );

    const list = await t.app.inject({ method: 'GET', url: '/api/admin/users?limit=100', headers: admin.headers });
    assert.equal(list.statusCode, 200, list.body);
    const figures = Object.fromEntries(
      (list.json().users as { id: string; totalTrades: number; accountBalance: number }[]).map((u) => [
        u.id,
        [u.totalTrades, u.accountBalance],
      ]),
    );
    assert.deepEqual(figures, {
      [admin.id]: [0, 0],
      [first.id]: [2, 1000.1],
      [second.id]: [3, 260.25],
      [idle.id]: [0, 0],
    });

    for (const [user, expected] of [
      [first, [2, 1000.1]],
      [second, [3, 260.25]],
      [idle, [0, 0]],
    ] as const) {
      const one = await t.app.inject({ method: 'GET', url: `/api/admin/users/${user.id}`, headers: admin.headers });
      assert.equal(one.statusCode, 200, one.body);
      assert.deepEqual([one.json().totalTrades, one.json().accountBalance], expected);
    }
  });
});
