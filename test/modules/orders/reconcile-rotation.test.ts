// Which orders a reconcile pass takes when more are not final than one pass looks up (decision 1300):
// those whose outcome is open first, then the least recently looked up, each marked as it is taken. Ordered
// by their last change, as before, a lookup that changed nothing left an order where it was: past the
// batch, every pass took the same orders, and one sent after them stayed `unknown` for good.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createOrdersRepository } from '../../../src/modules/orders/orders.repository.ts';
import { RECONCILE_BATCH } from '../../../src/modules/orders/order-execution.service.ts';
import { orders } from '../../../src/modules/orders/orders.tables.ts';
import type { OrderStatus } from '../../../src/modules/orders/orders.domain.ts';
import { clientOrderIdFor } from '../../../src/platform/client-order-ids.ts';
import { rowsOf } from '../../../src/platform/db/database.ts';
import { startOrdersApp, type OrdersApp, type Trader } from './orders-fixtures.ts';

describe('the reconcile pass over more orders than it looks up at once', () => {
  let o: OrdersApp;
  let trader: Trader;
  let repo: ReturnType<typeof createOrdersRepository>;
  before(async () => {
    o = await startOrdersApp();
    trader = await o.trader();
    repo = createOrdersRepository(o.t.database.db, null);
  });
  after(async () => {
    await o?.close();
  });

  /** Orders as stored, `count` of them, each a second after the one before from `from`. */
  async function stored(count: number, status: OrderStatus, from: Date): Promise<string[]> {
    const rows = Array.from({ length: count }, (_, i) => {
      const id = randomUUID();
      const at = new Date(from.getTime() + i * 1000);
      return {
        id,
        userId: trader.id,
        clientOrderId: clientOrderIdFor('binance', id),
        exchange: 'binance',
        symbol: 'BTC/USDT',
        side: 'buy' as const,
        type: 'limit' as const,
        timeInForce: 'GTC' as const,
        mode: 'live' as const,
        amount: '0.01',
        price: '1000',
        status,
        credentialId: trader.credentialId,
        createdAt: at,
        updatedAt: at,
      };
    });
    for (let i = 0; i < rows.length; i += 500) await o.t.database.db.insert(orders).values(rows.slice(i, i + 500));
    return rows.map((row) => row.id);
  }

  it('takes the orders the last pass did not reach, and one whose outcome is open before any', async () => {
    await o.t.database.db.execute(sql`DELETE FROM orders`);
    const start = new Date(o.clock.now().getTime() - 3 * 86_400_000);
    // Resting far from the market: looking them up changes nothing.
    const resting = await stored(RECONCILE_BATCH + 10, 'open', start);
    const [sentLast] = await stored(1, 'unknown', new Date(start.getTime() + 2 * 86_400_000));
    const [justStored] = await stored(1, 'pending', o.clock.now());
    const pendingBefore = new Date(o.clock.now().getTime() - 60_000);

    const first = await repo.toReconcile('live', pendingBefore, RECONCILE_BATCH, o.clock.now());
    assert.equal(first.length, RECONCILE_BATCH);
    assert.equal(first[0]?.id, sentLast, 'the order whose send got no answer comes first');
    assert.ok(!first.some((row) => row.id === justStored), 'a pending order its request may still send is left');

    o.clock.advance(30_000);
    const second = await repo.toReconcile('live', pendingBefore, RECONCILE_BATCH, o.clock.now());
    const firstIds = new Set(first.map((row) => row.id));
    const unreached = resting.filter((id) => !firstIds.has(id));
    assert.equal(unreached.length, 11);
    const secondIds = new Set(second.map((row) => row.id));
    assert.ok(
      unreached.every((id) => secondIds.has(id)),
      'the orders the first pass did not reach are in the second',
    );
    assert.equal(second[0]?.id, sentLast, 'still first while its outcome is open');
  });

  it('marks what it takes, so the real pass moves on too', async () => {
    await o.t.database.db.execute(sql`DELETE FROM orders`);
    await stored(3, 'open', new Date(o.clock.now().getTime() - 86_400_000));
    const passStarted = o.clock.now();
    const pass = await o.t.modules.orders.reconcile();
    assert.ok(pass.checked >= 3, JSON.stringify(pass));
    const looked = rowsOf<{ n: number }>(
      await o.t.database.db.execute(sql`SELECT count(*)::int AS n FROM orders WHERE checked_at >= ${passStarted}`),
    );
    assert.equal(looked[0]?.n, 3);
  });
});
