// The orders' and fills' rows: their types, and how the module's own statements (their text built once,
// decision 375) write an order and read either back as Drizzle would.
import { getTableColumns } from 'drizzle-orm';
import { PgNumeric, PgUUID } from 'drizzle-orm/pg-core';
import { arrayParam } from '../../platform/db/prepared.ts';
import { amountAtScale } from './orders.domain.ts';
import { orderFills, orders } from './orders.tables.ts';

export type OrderRow = typeof orders.$inferSelect;
export type NewOrder = typeof orders.$inferInsert;
export type FillRow = typeof orderFills.$inferSelect;
export type NewFill = typeof orderFills.$inferInsert;

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

export const ORDER_COLUMNS = Object.entries(getTableColumns(orders));

/** An order row as a raw statement answers it (column names, driver values), as Drizzle maps it. */
export function orderRowOf(raw: Record<string, unknown>): OrderRow {
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
export const INSERT_ORDER = `INSERT INTO "orders" (${ORDER_COLUMNS.map(([, c]) => `"${c.name}"`).join(', ')}) VALUES (${ORDER_COLUMNS.map(
  ([, c], i) => `$${i + 1}::${c.getSQLType()}`,
).join(', ')}) ON CONFLICT DO NOTHING RETURNING *`;

if (
  ORDER_COLUMNS.some(
    ([, c]) => c.defaultFn !== undefined || c.onUpdateFn !== undefined || typeof c.default === 'object',
  )
)
  throw new Error('orders: a column default the insert cannot give as a value');

/** The insert's values: the order's, else the column's default (every default of `orders` is a constant). */
export function orderParams(order: NewOrder): unknown[] {
  const given = order as Record<string, unknown>;
  return ORDER_COLUMNS.map(([key, column]) => {
    // As Drizzle's insert: a value left undefined takes the default, an explicit null stays null.
    const value = given[key] !== undefined ? given[key] : column.hasDefault ? column.default : undefined;
    return value === null || value === undefined ? null : column.mapToDriverValue(value);
  });
}

/**
 * A new order's row as its insert answers it (a column left out at its default, a numeric at its scale, a
 * uuid in lower case as PostgreSQL writes it out), for a row written only later in the same transaction
 * (decision 415), or written by a statement that answers its version alone (decision 550).
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
          ? amountAtScale(String(value), column.scale!)
          : column instanceof PgUUID
            ? String(value).toLowerCase()
            : value;
  }
  return row as OrderRow;
}

/** An order's columns PostgreSQL stores in a form of its own that a patch may change (numeric at scale 18). */
const PATCHED_AMOUNTS = ORDER_COLUMNS.filter(([key]) => ['filled', 'cost', 'fee', 'averagePrice'].includes(key));

/** `PATCHED_AMOUNTS`' columns of `table`, as a statement's select list. */
export const patchedAmountsText = (table: string): string =>
  PATCHED_AMOUNTS.map(([, c]) => `${table}."${c.name}"`).join(', ');

/**
 * The row a statement wrote from `given` (its every column, as `storedOrder` answers it, or a stored row
 * with a patch) whose select list was `patchedAmountsText`: the amounts as PostgreSQL stored them, the rest
 * as given; so that a statement writing an order need not answer its every column (decision 550).
 */
export function writtenOrder(given: OrderRow, raw: Record<string, unknown>): OrderRow {
  const row: Record<string, unknown> = { ...given };
  for (const [key, column] of PATCHED_AMOUNTS) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as OrderRow;
}

export const FILL_COLUMNS = Object.entries(getTableColumns(orderFills));

/** A fill as `LOCK_WITH_FILLS` answers it (its columns prefixed `fill_`), as Drizzle maps it. */
export function fillRowOf(raw: Record<string, unknown>): FillRow {
  const row: Record<string, unknown> = {};
  for (const [key, column] of FILL_COLUMNS) {
    const value = raw[`fill_${column.name}`];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as FillRow;
}

/** The fills as eight array parameters, one per column, in the order the statements unnest them. */
export function fillColumns(fills: readonly FillRow[]) {
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
