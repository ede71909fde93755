// The writes of an order's move under its row's lock (order-moves.service.ts): the row locked with its
// fills, the fills inserted once by venue trade id, the row's update.
import { eq } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { rowsOf } from '../../platform/db/database.ts';
import { executeText } from '../../platform/db/prepared.ts';
import {
  FILL_COLUMNS,
  fillRowOf,
  orderRowOf,
  type FillRow,
  type NewFill,
  type OrderPatch,
  type OrderRow,
} from './orders.rows.ts';
import { orderFills, orders } from './orders.tables.ts';

/**
 * The order's row locked, with its fills so far (one row each, oldest first; one row of nulls without
 * any): its text built once (decision 375).
 */
const LOCK_WITH_FILLS = `SELECT o.*, ${FILL_COLUMNS.map(([, c]) => `f."${c.name}" AS "fill_${c.name}"`).join(', ')}
  FROM "orders" o LEFT JOIN "order_fills" f ON f."order_id" = o."id"
  WHERE o."id" = $1::uuid ORDER BY f."at" FOR UPDATE OF o`;

/**
 * `LOCK_WITH_FILLS` for a transaction that commits without waiting for its WAL to reach the disk
 * (`synchronous_commit` off for that transaction only, set in the same round trip): for a change a
 * lookup at the venue makes again should the database lose it (decision 386).
 */
const LOCK_WITH_FILLS_UNFLUSHED = LOCK_WITH_FILLS.replace(
  'SELECT o.*,',
  `SELECT set_config('synchronous_commit', 'off', true) AS "unflushed", o.*,`,
);

export function createOrderMovesRepository(db: DbExecutor) {
  return {
    /**
     * The row, locked for the caller's transaction (one writer applies a venue state at a time), with its
     * fills so far, oldest first: one statement where a lock and a read of the fills took two.
     */
    async lockWithFills(
      id: string,
      executor: DbExecutor,
      commit: 'flushed' | 'unflushed' = 'flushed',
    ): Promise<{ row: OrderRow; fills: FillRow[] } | undefined> {
      const joined = rowsOf<Record<string, unknown>>(
        commit === 'flushed'
          ? await executeText(executor, 'orders_lock_with_fills', LOCK_WITH_FILLS, [id])
          : await executeText(executor, 'orders_lock_with_fills_unflushed', LOCK_WITH_FILLS_UNFLUSHED, [id]),
      );
      const first = joined[0];
      if (!first) return undefined;
      return { row: orderRowOf(first), fills: joined.flatMap((raw) => (raw.fill_id === null ? [] : [fillRowOf(raw)])) };
    },

    async update(id: string, patch: OrderPatch, executor: DbExecutor = db): Promise<OrderRow> {
      const [row] = await executor.update(orders).set(patch).where(eq(orders.id, id)).returning();
      return row!;
    },

    async insertFills(rows: NewFill[], executor: DbExecutor): Promise<FillRow[]> {
      if (rows.length === 0) return [];
      return executor.insert(orderFills).values(rows).onConflictDoNothing().returning();
    },
  };
}
