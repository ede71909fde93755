// The daily loss checks owed (decision 1030): the row a fill writes, in its own statement or transaction, for a
// user with a daily loss limit in force; the check's read of the day's fills with that row's version, in one
// snapshot; and the row's delete by the check that weighed it, only if no fill wrote it again since.
import { getTableName, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { rowsOf } from '../../platform/db/database.ts';
import { executeText } from '../../platform/db/prepared.ts';
import { dailyLossInForceText } from '../trading/index.ts';
import type { OrderMode } from '../../platform/order-venue.ts';
import { dailyLossChecksOwed } from './orders.tables.ts';

const OWED = getTableName(dailyLossChecksOwed);

/**
 * The owed row written from `source` (a SELECT of user id, mode and the fill's time) as SQL text, for a fill's
 * own statement. A row already owed keeps its `since` and takes a new version: a check that read the fills
 * before this one was stored no longer matches it, so its delete leaves the row (decision 1030).
 */
export function oweText(source: string): string {
  return `INSERT INTO "${OWED}" (user_id, mode, since) ${source}
    ON CONFLICT (user_id, mode) DO UPDATE SET since = "${OWED}".since`;
}

/**
 * The source of `oweText`: the user's id, mode and fill time `from` a statement's rows, `when` it stored fills,
 * if a daily loss limit is in force for the user (`defaultLimit`: the parameter of the configured default).
 */
export function owedIfLimited(o: {
  user: string;
  mode: string;
  at: string;
  from: string;
  when: string;
  defaultLimit: string;
}): string {
  return `SELECT ${o.user}, ${o.mode}, ${o.at} ${o.from} WHERE ${o.when} AND ${dailyLossInForceText(o.user, o.defaultLimit)}`;
}

/** One fill's check owed, from a transaction that stored fills outside the placing statements. */
const OWE_ONE = oweText(
  owedIfLimited({
    user: '$1::uuid',
    mode: '$2::text',
    at: '$3::timestamptz',
    from: '',
    when: 'true',
    defaultLimit: '$4',
  }),
);

const SETTLE = `DELETE FROM "${OWED}" WHERE user_id = $1::uuid AND mode = $2::text AND xmin = $3::xid`;

/** An owed check as the pass reads it: whose, and the row's version when read. */
export interface OwedCheck {
  userId: string;
  mode: OrderMode;
  version: string;
}

/** A fill the day's realized loss weighs, with its order's market and side. */
export interface DayFill {
  exchange: string;
  symbol: string;
  side: 'buy' | 'sell';
  price: string;
  amount: string;
  fee: string;
  feeCurrency: string | null;
}

export function createDailyLossOwedRepository(db: DbExecutor, defaultLimit: string | null) {
  return {
    /** The configured default daily loss limit, for the fill statements' condition (`owedIfLimited`). */
    dailyLossDefault: defaultLimit,

    /** Writes the user's check in `mode` as owed, in the fill's transaction, if a daily loss limit is in force. */
    async oweDailyLossCheck(userId: string, mode: OrderMode, at: Date, executor: DbExecutor): Promise<void> {
      await executeText(executor, 'orders_owe_daily_loss', OWE_ONE, [userId, mode, at, defaultLimit]);
    },

    /**
     * The user's fills of `mode` since `since`, oldest first, and the owed row's version (null: none), read in
     * one snapshot. Its text goes with every call (not named): the fault tests find it on the wire.
     */
    async dayFillsOwed(
      userId: string,
      mode: OrderMode,
      since: Date,
    ): Promise<{ fills: DayFill[]; version: string | null }> {
      const rows = rowsOf<Record<string, unknown>>(
        await db.execute(sql`SELECT w.version, f.exchange, f.symbol, f.side, f.price::text AS price,
            f.amount::text AS amount, f.fee::text AS fee, f.fee_currency
          FROM (SELECT (SELECT xmin::text FROM ${dailyLossChecksOwed} AS d
            WHERE d.user_id = ${userId}::uuid AND d.mode = ${mode}::text) AS version) AS w
          LEFT JOIN LATERAL (SELECT "orders".exchange, "orders".symbol, "orders".side, "order_fills".price,
              "order_fills".amount, "order_fills".fee, "order_fills".fee_currency, "order_fills".at, "order_fills".id
            from "order_fills" inner join "orders" on "orders".id = "order_fills".order_id
            WHERE "orders".user_id = ${userId}::uuid AND "orders".mode = ${mode}::text
              AND "order_fills".at >= ${since.toISOString()}::timestamptz) AS f ON true
          ORDER BY f.at, f.id`),
      );
      const version = rows[0]?.version;
      return {
        version: version === null || version === undefined ? null : String(version),
        fills: rows.flatMap((r) =>
          r.price === null
            ? []
            : [
                {
                  exchange: String(r.exchange),
                  symbol: String(r.symbol),
                  side: r.side as DayFill['side'],
                  price: String(r.price),
                  amount: String(r.amount),
                  fee: String(r.fee),
                  feeCurrency: r.fee_currency === null ? null : String(r.fee_currency),
                },
              ],
        ),
      };
    },

    /** The owed row deleted if still at `version` (no fill wrote it since the check read it). */
    async settleOwed(userId: string, mode: OrderMode, version: string): Promise<void> {
      await executeText(db, 'orders_settle_daily_loss', SETTLE, [userId, mode, version]);
    },

    /** The checks owed (of `userId` only, if given), oldest first, at most `limit`: what the pass settles. */
    async owedChecks(limit: number, userId?: string): Promise<OwedCheck[]> {
      const whose = userId === undefined ? sql`` : sql`WHERE user_id = ${userId}::uuid`;
      const rows = rowsOf<{ user_id: string; mode: OrderMode; version: string }>(
        await db.execute(
          sql`SELECT user_id, mode, xmin::text AS version FROM ${dailyLossChecksOwed} ${whose} ORDER BY since LIMIT ${limit}`,
        ),
      );
      return rows.map((r) => ({ userId: r.user_id, mode: r.mode, version: r.version }));
    },
  };
}
