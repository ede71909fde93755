// Every query of the orders module. Status moves are conditional updates on the row's current status,
// so two instances (or a request and the reconcile job) applying the same venue state change it once.
import { Decimal } from 'decimal.js';
import { and, asc, count, eq, getTableColumns, getTableName, gte, lt, or, sql, type SQL } from 'drizzle-orm';
import { PgNumeric } from 'drizzle-orm/pg-core';
import { auditRowsText, type AuditRowsParams } from '../../platform/audit.ts';
import { descending } from '../../platform/db/order.ts';
import type { DbExecutor } from '../../platform/db/database.ts';
import { rowOffset, rowsOf } from '../../platform/db/database.ts';
import { arrayParam, executeText } from '../../platform/db/prepared.ts';
import type { OrderStatus } from './orders.domain.ts';
import { fillTradesText } from '../exchange/index.ts';
import { orderFills, orders } from './orders.tables.ts';

export type OrderRow = typeof orders.$inferSelect;
export type NewOrder = typeof orders.$inferInsert;
export type FillRow = typeof orderFills.$inferSelect;
export type NewFill = typeof orderFills.$inferInsert;

export interface OrderFilter {
  userId: string;
  mode?: 'paper' | 'live';
  status?: OrderStatus;
  exchange?: string;
  symbol?: string;
  strategyId?: string;
}

export type OrderPatch = Partial<
  Pick<
    OrderRow,
    | 'status'
    | 'filled'
    | 'cost'
    | 'fee'
    | 'feeCurrency'
    | 'averagePrice'
    | 'venueOrderId'
    | 'reason'
    | 'notFinal'
    | 'updatedAt'
  >
>;

function where(filter: OrderFilter): SQL {
  const conditions: SQL[] = [eq(orders.userId, filter.userId)];
  if (filter.mode) conditions.push(eq(orders.mode, filter.mode));
  if (filter.status) conditions.push(eq(orders.status, filter.status));
  if (filter.exchange) conditions.push(eq(orders.exchange, filter.exchange));
  // BTCUSDT, BTC-USDT and BTC/USDT find the same orders.
  if (filter.symbol)
    conditions.push(sql`replace(${orders.symbol}, '/', '') = ${filter.symbol.toUpperCase().replace(/[^A-Z0-9]/g, '')}`);
  if (filter.strategyId) conditions.push(eq(orders.strategyId, filter.strategyId));
  return and(...conditions)!;
}

const ORDER_COLUMNS = Object.entries(getTableColumns(orders));

/** An order row as a raw statement answers it (column names, driver values), as Drizzle maps it. */
function orderRowOf(raw: Record<string, unknown>): OrderRow {
  const row: Record<string, unknown> = {};
  for (const [key, column] of ORDER_COLUMNS) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as OrderRow;
}

/**
 * Every order's insert, its text built once: every column, each value cast to its column's type, a
 * column left out of the new order taking its column's default as Drizzle's insert would (decision 375).
 */
const INSERT_ORDER = `INSERT INTO "orders" (${ORDER_COLUMNS.map(([, c]) => `"${c.name}"`).join(', ')}) VALUES (${ORDER_COLUMNS.map(
  ([, c], i) => `$${i + 1}::${c.getSQLType()}`,
).join(', ')}) ON CONFLICT DO NOTHING RETURNING *`;

if (
  ORDER_COLUMNS.some(
    ([, c]) => c.defaultFn !== undefined || c.onUpdateFn !== undefined || typeof c.default === 'object',
  )
)
  throw new Error('orders: a column default the insert cannot give as a value');

/** The insert's values: the order's, else the column's default (every default of `orders` is a constant). */
function orderParams(order: NewOrder): unknown[] {
  const given = order as Record<string, unknown>;
  return ORDER_COLUMNS.map(([key, column]) => {
    // As Drizzle's insert: a value left undefined takes the default, an explicit null stays null.
    const value = given[key] !== undefined ? given[key] : column.hasDefault ? column.default : undefined;
    return value === null || value === undefined ? null : column.mapToDriverValue(value);
  });
}

/**
 * A new order's row as its insert answers it (a column left out at its default, a numeric at its scale),
 * for a row written only later in the same transaction (decision 415).
 */
export function storedOrder(order: NewOrder): OrderRow {
  const given = order as Record<string, unknown>;
  const row: Record<string, unknown> = {};
  for (const [key, column] of ORDER_COLUMNS) {
    const value = given[key] !== undefined ? given[key] : column.hasDefault ? column.default : null;
    row[key] =
      value === null || value === undefined
        ? null
        : column instanceof PgNumeric
          ? new Decimal(String(value)).toFixed(column.scale!)
          : value;
  }
  return row as OrderRow;
}

const FILL_COLUMNS = Object.entries(getTableColumns(orderFills));

/** A fill as `LOCK_WITH_FILLS` answers it (its columns prefixed `fill_`), as Drizzle maps it. */
function fillRowOf(raw: Record<string, unknown>): FillRow {
  const row: Record<string, unknown> = {};
  for (const [key, column] of FILL_COLUMNS) {
    const value = raw[`fill_${column.name}`];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as FillRow;
}

/**
 * The order's row locked, with its fills so far (one row each, oldest first; one row of nulls without
 * any): its text built once (decision 375).
 */
const LOCK_WITH_FILLS = `SELECT o.*, ${FILL_COLUMNS.map(([, c]) => `f."${c.name}" AS "fill_${c.name}"`).join(', ')}
  FROM "orders" o LEFT JOIN "order_fills" f ON f."order_id" = o."id"
  WHERE o."id" = $1::uuid ORDER BY f."at" FOR UPDATE OF o`;

/** A user's open orders and orders since `$2`, read on every order: its text built once (decision 380). */
const COUNTS = `SELECT count(*) FILTER (WHERE not_final)::int AS open,
    count(*) FILTER (WHERE created_at >= $2::timestamptz)::int AS recent
  FROM "orders"
  WHERE user_id = $1::uuid AND (not_final OR created_at >= $2::timestamptz)`;

/**
 * A paper order written once, in its final state, after the engine settled it in the caller's transaction
 * (`insertFinished`): the row, its fills and its audit entries in one statement whose text is built once
 * (decision 415). A taken idempotency key writes none of them (no row answered).
 */
const INSERT_FINISHED = `WITH claimed AS (${INSERT_ORDER}), fills AS (
    INSERT INTO "${getTableName(orderFills)}" (id, order_id, trade_id, price, amount, fee, fee_currency, maker, at)
    SELECT v.id, claimed.id, v.trade_id, v.price, v.amount, v.fee, v.fee_currency, v.maker, v.at
    FROM claimed, unnest($${ORDER_COLUMNS.length + 1}::uuid[], $${ORDER_COLUMNS.length + 2}::text[],
      $${ORDER_COLUMNS.length + 3}::numeric[], $${ORDER_COLUMNS.length + 4}::numeric[],
      $${ORDER_COLUMNS.length + 5}::numeric[], $${ORDER_COLUMNS.length + 6}::text[],
      $${ORDER_COLUMNS.length + 7}::boolean[], $${ORDER_COLUMNS.length + 8}::timestamptz[])
      WITH ORDINALITY AS v(id, trade_id, price, amount, fee, fee_currency, maker, at, n)
    ORDER BY v.n
  ), entries AS (${auditRowsText(`$${ORDER_COLUMNS.length + 9}`, `$${ORDER_COLUMNS.length + 10}`)}
    WHERE EXISTS (SELECT 1 FROM claimed))
  SELECT * FROM claimed`;

/**
 * A new order's insert with its audit entries (`auditRows`' two values after the order's) in one
 * statement, the entries written only when the order is (a taken idempotency key inserts neither):
 * atomic as a statement is, without a transaction's BEGIN and COMMIT round trips (decision 385).
 */
const INSERT_ORDER_AUDITED = `WITH claimed AS (${INSERT_ORDER.replace(
  /RETURNING \*$/,
  'RETURNING *, xmin::text AS "row_version"',
)}), entries AS (${auditRowsText(
  `$${ORDER_COLUMNS.length + 1}`,
  `$${ORDER_COLUMNS.length + 2}`,
)} WHERE EXISTS (SELECT 1 FROM claimed)) SELECT * FROM claimed`;

/**
 * `LOCK_WITH_FILLS` for a transaction that commits without waiting for its WAL to reach the disk
 * (`synchronous_commit` off for that transaction only, set in the same round trip): for a change a
 * lookup at the venue makes again should the database lose it (decision 386).
 */
const LOCK_WITH_FILLS_UNFLUSHED = LOCK_WITH_FILLS.replace(
  'SELECT o.*,',
  `SELECT set_config('synchronous_commit', 'off', true) AS "unflushed", o.*,`,
);

/**
 * The answer to a live order's send applied to its row as the claim left it, in one statement: the row's
 * update only if its version (`xmin`) is still the claim's (`$22`), and with it, only then, its fills, the
 * user's trades of them and its audit entries; the commit not waiting for the disk (decision 386). No row
 * when the order changed since its claim: nothing is written, and the caller applies the answer under
 * the row's lock (decision 420). Its first 21 parameters are `finishParams`'.
 */
const FINISH_CLAIMED = `WITH unflushed AS (SELECT set_config('synchronous_commit', 'off', true) AS s),
  moved AS (
    UPDATE "${getTableName(orders)}" SET status = $12::text, filled = $13::numeric, cost = $14::numeric,
      fee = $15::numeric, fee_currency = $16::text, average_price = $17::numeric, venue_order_id = $18::text,
      reason = $19::text, not_final = $20::boolean, updated_at = $21::timestamptz
    WHERE id = $1::uuid AND xmin = $22::xid AND EXISTS (SELECT 1 FROM unflushed)
    RETURNING *
  ), fills AS (
    INSERT INTO "${getTableName(orderFills)}" (id, order_id, trade_id, price, amount, fee, fee_currency, maker, at)
    SELECT v.id, $1::uuid, v.trade_id, v.price, v.amount, v.fee, v.fee_currency, v.maker, v.at
    FROM unnest($2::uuid[], $3::text[], $4::numeric[], $5::numeric[], $6::numeric[], $7::text[], $8::boolean[],
      $9::timestamptz[])
      WITH ORDINALITY AS v(id, trade_id, price, amount, fee, fee_currency, maker, at, n)
    WHERE EXISTS (SELECT 1 FROM moved)
    ORDER BY v.n
    ON CONFLICT DO NOTHING
    RETURNING trade_id, price, amount, fee, fee_currency, at
  ), trades AS (${fillTradesText('fills', 'moved')}),
  entries AS (${auditRowsText('$10', '$11')} WHERE EXISTS (SELECT 1 FROM moved))
  SELECT * FROM moved`;

/** The fills as eight array parameters, one per column, in the order the statements unnest them. */
function fillColumns(fills: readonly FillRow[]) {
  const column = (pick: (fill: FillRow) => string | boolean | null) => arrayParam(fills.map(pick));
  return [
    column((f) => f.id),
    column((f) => f.tradeId),
    column((f) => f.price),
    column((f) => f.amount),
    column((f) => f.fee),
    column((f) => f.feeCurrency),
    column((f) => f.maker),
    column((f) => f.at.toISOString()),
  ];
}

/** `FINISH_CLAIMED`'s first 21 parameters: the order's id, its fills as arrays, its audit entries, its patch. */
function finishParams(id: string, patch: Required<OrderPatch>, fills: readonly FillRow[], entries: AuditRowsParams) {
  return [
    id,
    ...fillColumns(fills),
    ...entries,
    patch.status,
    patch.filled,
    patch.cost,
    patch.fee,
    patch.feeCurrency,
    patch.averagePrice,
    patch.venueOrderId,
    patch.reason,
    patch.notFinal,
    patch.updatedAt,
  ];
}

export function createOrdersRepository(db: DbExecutor) {
  return {
    /** A new order's insert, with its audit entries (`auditRows`) written in the same statement. */
    async insertAudited(
      order: NewOrder,
      entries: AuditRowsParams,
      executor: DbExecutor = db,
    ): Promise<{ row: OrderRow; version: string } | 'idempotency_taken'> {
      const [raw] = rowsOf<Record<string, unknown>>(
        await executeText(executor, 'orders_insert_audited', INSERT_ORDER_AUDITED, [...orderParams(order), ...entries]),
      );
      return raw ? { row: orderRowOf(raw), version: String(raw.row_version) } : 'idempotency_taken';
    },

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

    /**
     * A new order inserted in its final state (`order`), with its fills and its audit entries (`auditRows`),
     * in one statement, named (its text is the same for any order: the fills go as arrays); nothing is
     * written when the idempotency key is taken.
     */
    async insertFinished(
      order: NewOrder,
      fills: readonly FillRow[],
      entries: AuditRowsParams,
      executor: DbExecutor,
    ): Promise<OrderRow | 'idempotency_taken'> {
      const [raw] = rowsOf<Record<string, unknown>>(
        await executeText(executor, 'orders_insert_finished', INSERT_FINISHED, [
          ...orderParams(order),
          ...fillColumns(fills),
          ...entries,
        ]),
      );
      return raw ? orderRowOf(raw) : 'idempotency_taken';
    },

    /**
     * A live order's answer applied in one statement (`FINISH_CLAIMED`) if the row is still the claim's
     * `version`; undefined, with nothing written, if it changed since.
     */
    async finishClaimed(
      id: string,
      version: string,
      patch: Required<OrderPatch>,
      fills: readonly FillRow[],
      entries: AuditRowsParams,
    ): Promise<OrderRow | undefined> {
      const params = [...finishParams(id, patch, fills, entries), version];
      const [raw] = rowsOf<Record<string, unknown>>(
        await executeText(db, 'orders_finish_claimed', FINISH_CLAIMED, params),
      );
      return raw ? orderRowOf(raw) : undefined;
    },

    async fills(orderId: string, executor: DbExecutor = db): Promise<FillRow[]> {
      return executor.select().from(orderFills).where(eq(orderFills.orderId, orderId)).orderBy(asc(orderFills.at));
    },

    async insertFills(rows: NewFill[], executor: DbExecutor): Promise<FillRow[]> {
      if (rows.length === 0) return [];
      return executor.insert(orderFills).values(rows).onConflictDoNothing().returning();
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
        .where(and(where(filter), eq(orders.notFinal, true)))
        .orderBy(asc(orders.createdAt));
    },

    /**
     * Orders the reconcile pass brings to the venue's state: every order not final, except those still
     * `pending` younger than `pendingBefore` (their request may be about to claim and send them).
     */
    async toReconcile(mode: 'paper' | 'live', pendingBefore: Date, limit: number): Promise<OrderRow[]> {
      return db
        .select()
        .from(orders)
        .where(
          and(
            eq(orders.notFinal, true),
            eq(orders.mode, mode),
            or(sql`${orders.status} <> 'pending'`, lt(orders.createdAt, pendingBefore)),
          ),
        )
        .orderBy(asc(orders.updatedAt))
        .limit(limit);
    },

    /**
     * The user's open orders and orders placed since `since` (for the risk limits), read on every order:
     * named, since its plan (the user's index) is the same for any user (decision 271).
     */
    async counts(userId: string, since: Date): Promise<{ openOrders: number; ordersLastMinute: number }> {
      const from = since.toISOString();
      const [row] = rowsOf<{ open: number; recent: number }>(
        await executeText(db, 'orders_counts', COUNTS, [userId, from]),
      );
      return { openOrders: Number(row?.open ?? 0), ordersLastMinute: Number(row?.recent ?? 0) };
    },

    /** Every order not final of every user (a platform halt cancels them all). */
    async notFinalAll(): Promise<OrderRow[]> {
      return db.select().from(orders).where(eq(orders.notFinal, true)).orderBy(asc(orders.createdAt));
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

export type OrdersRepository = ReturnType<typeof createOrdersRepository>;
