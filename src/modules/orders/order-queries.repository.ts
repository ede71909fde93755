// The orders' reads: one order (by id, idempotency key or client order id), a user's list, the orders
// not final (cancel-all, a halt, the reconcile pass, which marks those it takes), a user's order counts and
// day's fills.
import { and, asc, count, eq, gte, lt, or, sql, type SQL } from 'drizzle-orm';
import { descending } from '../../platform/db/order.ts';
import type { DbExecutor } from '../../platform/db/database.ts';
import { rowOffset } from '../../platform/db/database.ts';
import type { CountsJoin } from '../trading/index.ts';
import { literalOf } from '../../platform/db/literals.ts';
import { ORDER_MODES, ORDER_STATUSES, type OrderStatus } from './orders.domain.ts';
import type { FillRow, OrderRow } from './orders.rows.ts';
import { orderFills, orders } from './orders.tables.ts';

export interface OrderFilter {
  userId: string;
  mode?: 'paper' | 'live';
  status?: OrderStatus;
  exchange?: string;
  symbol?: string;
  strategyId?: string;
}

/**
 * Orders not final, written as the partial indexes' own predicate: bound as `not_final = $n`, the one plan
 * for any value could use neither index and read every order ever placed (decision 1420).
 */
const NOT_FINAL = sql`${orders.notFinal}`;

/**
 * The user's orders matching the filter. The mode and status are closed sets, written into the text so that a
 * list of one status (the two open orders of a bot with thousands filled) is planned for it and read through
 * the user's orders by status; bound, the one plan walked the user's whole history (decision 1440).
 */
function where(filter: OrderFilter): SQL {
  const conditions: SQL[] = [eq(orders.userId, filter.userId)];
  if (filter.mode) conditions.push(sql`${orders.mode} = ${literalOf(filter.mode, ORDER_MODES)}`);
  if (filter.status) conditions.push(sql`${orders.status} = ${literalOf(filter.status, ORDER_STATUSES)}`);
  if (filter.exchange) conditions.push(eq(orders.exchange, filter.exchange));
  // BTCUSDT, BTC-USDT and BTC/USDT find the same orders.
  if (filter.symbol)
    conditions.push(sql`replace(${orders.symbol}, '/', '') = ${filter.symbol.toUpperCase().replace(/[^A-Z0-9]/g, '')}`);
  if (filter.strategyId) conditions.push(eq(orders.strategyId, filter.strategyId));
  return and(...conditions)!;
}

/**
 * The user's open orders and orders placed since `$2`, read on every order as a join of the trading gate's
 * statement (decision 501: one statement where there were two, on two of the pool's connections), its text
 * built once (decision 380). Each is counted apart, through its own index: the open ones through the user's
 * orders not final, the recent ones through the user's orders by date. Counted in one scan of
 * `not_final OR created_at >= $2`, the planner read every open order of the platform (decision 1420).
 */
const COUNTS_JOIN = `LEFT JOIN LATERAL (SELECT
      (SELECT count(*) FROM "orders" AS oc WHERE oc.user_id = u.user_id AND oc.not_final)::int AS open,
      (SELECT count(*) FROM "orders" AS oc
        WHERE oc.user_id = u.user_id AND oc.created_at >= $2::timestamptz)::int AS recent) AS order_counts ON true`;
/** With them, whether a daily loss check of the user is owed (decision 1030): one primary-key probe. */
const COUNTS_COLUMNS = `order_counts.open AS orders_open, order_counts.recent AS orders_recent,
  EXISTS (SELECT 1 FROM "daily_loss_checks_owed" AS dl WHERE dl.user_id = u.user_id) AS daily_loss_owed`;

/**
 * The counts the risk limits weigh, as the trading module's admission reads them with its gate; `owed()`, once
 * the gate has read them, says whether a daily loss check of the user was owed then.
 */
export function orderCountsJoin(since: Date): CountsJoin & { owed(): boolean } {
  let owed = false;
  return {
    join: COUNTS_JOIN,
    columns: COUNTS_COLUMNS,
    params: [since.toISOString()],
    of: (row) => {
      owed = row.daily_loss_owed === true;
      return { openOrders: Number(row.orders_open ?? 0), ordersLastMinute: Number(row.orders_recent ?? 0) };
    },
    owed: () => owed,
  };
}

export function createOrderQueries(db: DbExecutor) {
  return {
    async byIdempotencyKey(userId: string, key: string): Promise<OrderRow | undefined> {
      const [row] = await db
        .select()
        .from(orders)
        .where(and(eq(orders.userId, userId), eq(orders.idempotencyKey, key)));
      return row;
    },

    async owned(userId: string, id: string): Promise<OrderRow | undefined> {
      const [row] = await db
        .select()
        .from(orders)
        .where(and(eq(orders.userId, userId), eq(orders.id, id)));
      return row;
    },

    async fills(orderId: string, executor: DbExecutor = db): Promise<FillRow[]> {
      return executor.select().from(orderFills).where(eq(orderFills.orderId, orderId)).orderBy(asc(orderFills.at));
    },

    async list(filter: OrderFilter, limit: number, offset: number): Promise<{ rows: OrderRow[]; total: number }> {
      const [rows, [total]] = await Promise.all([
        db
          .select()
          .from(orders)
          .where(where(filter))
          .orderBy(descending(orders.createdAt), descending(orders.id))
          .limit(limit)
          .offset(rowOffset(offset)),
        db.select({ n: count() }).from(orders).where(where(filter)),
      ]);
      return { rows, total: Number(total?.n ?? 0) };
    },

    /** A user's orders not final, for cancel-all. */
    async notFinalOf(filter: OrderFilter): Promise<OrderRow[]> {
      return db
        .select()
        .from(orders)
        .where(and(where(filter), NOT_FINAL))
        .orderBy(asc(orders.createdAt));
    },

    /**
     * Orders the reconcile pass brings to the venue's state: up to `limit` of those not final, except those
     * still `pending` younger than `pendingBefore` (their request may be about to claim and send them).
     * Those whose outcome is open (`unknown`, a `pending` its request left) come first, then the least
     * recently looked up; each taken is marked looked up at `now` in the same statement. Ordered by the
     * last change instead, a lookup that changed nothing left an order where it was, and past `limit`
     * orders not final every pass took the same ones: an order sent after them stayed `unknown` for good
     * (decision 1300). A row a move holds locked is left for the next pass.
     */
    async toReconcile(mode: 'paper' | 'live', pendingBefore: Date, limit: number, now: Date): Promise<OrderRow[]> {
      const open = sql`${orders.status} IN ('pending', 'unknown')`;
      const due = db
        .select({ id: orders.id })
        .from(orders)
        .where(
          and(
            NOT_FINAL,
            eq(orders.mode, mode),
            or(sql`${orders.status} <> 'pending'`, lt(orders.createdAt, pendingBefore)),
          ),
        )
        .orderBy(sql`${open} DESC`, sql`${orders.checkedAt} ASC NULLS FIRST`, asc(orders.createdAt))
        .limit(limit)
        .for('update', { skipLocked: true });
      // The ids as an array: taken by the primary key one by one. As `id IN (…)`, the one plan for any limit
      // expected many and read every order placed to join them (decision 1420).
      const rows = await db
        .update(orders)
        .set({ checkedAt: now })
        .where(sql`${orders.id} = ANY(ARRAY(${due}))`)
        .returning();
      const openFirst = (row: OrderRow) => (row.status === 'pending' || row.status === 'unknown' ? 0 : 1);
      return rows.sort((a, b) => openFirst(a) - openFirst(b) || a.createdAt.getTime() - b.createdAt.getTime());
    },

    /** Every order not final of every user (a platform halt cancels them all). */
    async notFinalAll(): Promise<OrderRow[]> {
      return db.select().from(orders).where(NOT_FINAL).orderBy(asc(orders.createdAt));
    },

    /** The user's fills since `since` in one mode, oldest first, with their order's market and side. */
    async fillsSince(userId: string, mode: 'paper' | 'live', since: Date) {
      return db
        .select({
          exchange: orders.exchange,
          symbol: orders.symbol,
          side: orders.side,
          price: orderFills.price,
          amount: orderFills.amount,
          fee: orderFills.fee,
          feeCurrency: orderFills.feeCurrency,
        })
        .from(orderFills)
        .innerJoin(orders, eq(orders.id, orderFills.orderId))
        .where(and(eq(orders.userId, userId), eq(orders.mode, mode), gte(orderFills.at, since)))
        .orderBy(asc(orderFills.at), asc(orderFills.id));
    },

    /** A user's order by its client order id (a venue's notice names it so). */
    async byClientOrderId(userId: string, clientOrderId: string): Promise<OrderRow | undefined> {
      const [row] = await db
        .select()
        .from(orders)
        .where(and(eq(orders.userId, userId), eq(orders.clientOrderId, clientOrderId)));
      return row;
    },
  };
}
