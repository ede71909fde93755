// Live safety (issue 39 part 4) and what every change leaves behind: LIVE_TRADING, two-factor, a fresh
// second factor or a trade:write API token; the account stream's order.updated; the audit of each move.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../../src/platform/http/errors.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { follow } from '../../helpers/sse-client.ts';
import { signIn } from '../../helpers/test-app.ts';
import { decodeBase32, referenceTotp } from '../../helpers/totp-reference.ts';
import { startOrdersApp, type OrdersApp } from './orders-fixtures.ts';

describe('live trading switched off on the server', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp({ env: { LIVE_TRADING: 'false' } });
  });
  after(async () => {
    await o.close();
  });

  it('refuses live orders with 403 saying so, and sends nothing', async () => {
    const trader = await o.trader();
    assertDetail(await o.place(trader, {}), 403, 'Live trading is off on this server (LIVE_TRADING is not true)');
    assert.equal(o.book.orders.length, 0);
  });

  it('refuses them at the door itself, whoever calls it, and an exchange that is no venue (decision 1130)', async () => {
    const trader = await o.trader();
    const order = { exchange: 'binance', symbol: 'BTC/USDT', side: 'buy', type: 'market', amount: '0.01' } as const;
    const service = o.t.modules.orders.service;
    await assert.rejects(service.place({ ...order, mode: 'live' }, { id: trader.id }), (error: unknown) => {
      assert.ok(error instanceof AppError && error.status === 403, String(error));
      assert.equal(error.detail, 'Live trading is off on this server (LIVE_TRADING is not true)');
      return true;
    });
    await assert.rejects(service.place({ ...order, exchange: 'mtgox' }, { id: trader.id }), (error: unknown) => {
      assert.ok(error instanceof AppError && error.status === 422, String(error));
      assert.match(JSON.stringify(error.detail), /"loc":\["body","exchange"\]/);
      return true;
    });
    assert.equal(o.book.orders.length, 0);
    const stored = (await o.inject('GET', '/api/orders', trader.headers)).json();
    assert.equal(stored.total, 0, 'nothing stored');
  });
});

describe('live safety and the traces of an order', () => {
  let o: OrdersApp;
  before(async () => {
    o = await startOrdersApp();
  });
  after(async () => {
    await o.close();
  });

  it('refuses a user without two-factor, naming it', async () => {
    const user = await signIn(o.t.app, o.t.database);
    assertDetail(
      await o.place(user, {}),
      403,
      'Live trading needs two-factor authentication on your account; enable it first',
    );
  });

  it('refuses a stale second factor, and takes an API token with trade:write (made after a step-up)', async () => {
    const trader = await o.trader();
    o.clock.advance(11 * 60_000);
    const stale = await o.place(trader, {});
    assert.equal(stale.statusCode, 403);
    assert.match(stale.json().detail, /second factor within the last 10 minutes/);
    assert.equal(o.book.of(trader.account.apiKey).length, 0);

    const code = referenceTotp(
      Buffer.from(decodeBase32(trader.secret)),
      Math.floor(o.clock.now().getTime() / 30_000) * 30,
      6,
    );
    const stepped = await o.inject('POST', '/api/auth/2fa/step-up', trader.headers, { code });
    assert.equal(stepped.statusCode, 200, stepped.body);
    const fresh = { authorization: `Bearer ${stepped.json().access_token}` };
    const token = async (scopes: string[]) => {
      const made = await o.inject('POST', '/api/auth/tokens', fresh, { name: scopes.join(' '), scopes });
      assert.equal(made.statusCode, 201, made.body);
      return { authorization: `Bearer ${made.json().token}` };
    };
    const writer = await token(['trade:read', 'trade:write']);
    const reader = await token(['trade:read']);
    o.clock.advance(11 * 60_000);
    const placed = await o.place({ headers: writer }, {});
    assert.equal(placed.statusCode, 201, placed.body);
    assert.equal(placed.json().status, 'filled');
    assertDetail(await o.place({ headers: reader }, {}), 403, 'This API token lacks the scope trade:write');
    assert.equal((await o.inject('GET', '/api/orders', reader)).json().total, 1);
  });

  it('publishes order.updated for each change and audits each transition', async () => {
    const trader = await o.trader();
    const admin = await signIn(o.t.app, o.t.database, { role: 'admin' });
    const base = await o.t.app.listen({ host: '127.0.0.1', port: 0 });
    const stream = follow(`${base}/api/stream`, { headers: trader.headers });
    try {
      await stream.opened;
      const id = (await o.place(trader, { type: 'limit', price: '60000' })).json().id;
      await o.inject('DELETE', `/api/orders/${id}`, trader.headers);
      const order = (e: { data: Record<string, unknown> }) => e.data.data as { id: string; status: string };
      const canceled = await stream.waitFor(
        (e) => e.type === 'order.updated' && order(e).id === id && order(e).status === 'canceled',
      );
      assert.equal((canceled.data.data as { client_order_id: string }).client_order_id, id);
      const seen = stream.events
        .filter((e) => e.type === 'order.updated' && order(e).id === id)
        .map((e) => order(e).status);
      assert.deepEqual(seen, ['pending', 'unknown', 'open', 'canceled']);
    } finally {
      stream.close();
    }
    const activity = await o.inject('GET', `/api/admin/users/${trader.id}/activity?limit=100`, admin.headers);
    const moves = (activity.json() as { action: string; details: { from?: string; to?: string } }[])
      .filter((a) => a.action.startsWith('order.'))
      .map((a) => (a.action === 'order.transition' ? `${a.details.from}→${a.details.to}` : a.action))
      .reverse();
    assert.deepEqual(moves, ['order.place', 'pending→unknown', 'unknown→open', 'order.cancel', 'open→canceled']);
  });
});
