// Trades synced from venues. Inserts never duplicate (unique venue id per user, venue and symbol);
// sums are taken in SQL over numeric, so totals stay exact. Counts, statistics and deep pages read the
// days the database sums as trades are written (exchange_trade_days, docs/decisions/124) and only the
// trades of the partial days at a window's edges, so their cost follows the days, not the trades.
import { and, eq, getTableName, gte, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import { rowOffset, rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { exchangeTradeDays, exchangeTrades } from './exchange.tables.ts';
import { descending } from '../../platform/db/order.ts';
import { wholeDays, type DaySpan } from './trade-days.domain.ts';

/** Trades of one millisecond a sync skips by id at most (a venue's burst of fills of one order is far fewer). */
const MAX_BOUNDARY_IDS = 10_000;

export type TradeRow = typeof exchangeTrades.$inferSelect;
export type NewTrade = typeof exchangeTrades.$inferInsert;

/**
 * The INSERT of an order's new fills as the user's trades, the rows `insertNew` stores for them (once per venue
 * trade id, whichever of trade sync and the order sees it first), for use inside the caller's statement: from
 * the relation `fills` (trade_id, price, amount, fee, fee_currency, at) of the one row `order` (user_id,
 * exchange, credential_id, symbol, side). Text built once by the caller (decision 420).
 */
export function fillTradesText(fills: string, order: string): string {
  return `INSERT INTO "${getTableName(exchangeTrades)}" (user_id, exchange, credential_id, exchange_trade_id, symbol,
      side, price, amount, total, fee, fee_currency, trade_timestamp)
    SELECT o.user_id, o.exchange, o.credential_id, f.trade_id, o.symbol, o.side, f.price, f.amount,
      f.price * f.amount, f.fee, f.fee_currency, f.at
    FROM ${fills} f CROSS JOIN ${order} o
    ON CONFLICT DO NOTHING`;
}

interface TradeFilter {
  userId: string;
  exchange?: string;
  /** Matched without separators, so BTCUSDT, BTC-USDT and BTC/USDT find the same trades. */
  symbol?: string;
  start?: Date;
  end?: Date;
}

export interface TradeStatsRow {
  total_trades: number;
  buy_count: number;
  sell_count: number;
  synced_count: number;
  failed_count: number;
  total_volume: string;
  total_fees: string;
  first_trade: Date | string | null;
  last_trade: Date | string | null;
}

/** From this many rows on, a page starts at the day its first row falls in rather than skipping rows one by one. */
const DEEP_OFFSET = 1_000;

/** A trade's columns under their field names, amounts as exact text (as the numeric columns read). */
const tradeColumns = sql`${exchangeTrades.id} AS id, ${exchangeTrades.userId} AS "userId",
  ${exchangeTrades.exchange} AS exchange, ${exchangeTrades.credentialId} AS "credentialId",
  ${exchangeTrades.exchangeTradeId} AS "exchangeTradeId", ${exchangeTrades.symbol} AS symbol,
  ${exchangeTrades.side} AS side, ${exchangeTrades.price}::text AS price, ${exchangeTrades.amount}::text AS amount,
  ${exchangeTrades.total}::text AS total, ${exchangeTrades.fee}::text AS fee,
  ${exchangeTrades.feeCurrency} AS "feeCurrency", ${exchangeTrades.tradeTimestamp} AS "tradeTimestamp",
  ${exchangeTrades.syncStatus} AS "syncStatus", ${exchangeTrades.createdAt} AS "createdAt"`;

type ListedTrade = Omit<TradeRow, 'id' | 'tradeTimestamp' | 'createdAt'> & {
  /** How many trades the window holds (the trade's own `total` is its quote amount). */
  records: number | string;
  /** Null on the one row of a page past the end, which carries only the total. */
  id: string | null;
  tradeTimestamp: Date | string;
  createdAt: Date | string;
};

const compactSymbol = (symbol: string) => symbol.toUpperCase().replace(/[^A-Z0-9]/g, '');

function where(filter: TradeFilter): SQL {
  const conditions: SQL[] = [eq(exchangeTrades.userId, filter.userId)];
  if (filter.exchange) conditions.push(eq(exchangeTrades.exchange, filter.exchange));
  if (filter.symbol) conditions.push(sql`replace(${exchangeTrades.symbol}, '/', '') = ${compactSymbol(filter.symbol)}`);
  if (filter.start) conditions.push(gte(exchangeTrades.tradeTimestamp, filter.start));
  if (filter.end) conditions.push(lte(exchangeTrades.tradeTimestamp, filter.end));
  return and(...conditions)!;
}

/** The summed days wholly inside the window. */
function daysWhere(filter: TradeFilter, span: DaySpan): SQL {
  const conditions: SQL[] = [eq(exchangeTradeDays.userId, filter.userId)];
  if (filter.exchange) conditions.push(eq(exchangeTradeDays.exchange, filter.exchange));
  if (filter.symbol)
    conditions.push(sql`replace(${exchangeTradeDays.symbol}, '/', '') = ${compactSymbol(filter.symbol)}`);
  if (span.first) conditions.push(gte(exchangeTradeDays.day, span.first));
  if (span.past) conditions.push(lt(exchangeTradeDays.day, span.past));
  return and(...conditions)!;
}

/** The window's trades outside its whole days (none when the window is unbounded both ways). */
function edgesWhere(filter: TradeFilter, span: DaySpan | null): SQL | undefined {
  if (!span) return where(filter);
  const outside = [
    span.first ? lt(exchangeTrades.tradeTimestamp, sql`${span.first}::timestamp AT TIME ZONE 'UTC'`) : undefined,
    span.past ? gte(exchangeTrades.tradeTimestamp, sql`${span.past}::timestamp AT TIME ZONE 'UTC'`) : undefined,
  ].filter((c) => c !== undefined);
  return outside.length === 0 ? undefined : and(where(filter), or(...outside));
}

export function createTradesRepository(db: DbExecutor) {
  /**
   * How many trades are in the window, as a query of one row: `n`, its whole days' sums and the trades
   * of its edges, and `days`, the whole days' part alone (each summed once: `OFFSET 0` keeps the parts
   * from being inlined into both columns).
   */
  function totalQuery(filter: TradeFilter, span: DaySpan | null): SQL {
    const edges = edgesWhere(filter, span);
    return sql`SELECT (days + edges)::bigint AS n, days FROM (SELECT ${
      span
        ? sql`(SELECT coalesce(sum(total_trades), 0) FROM ${exchangeTradeDays} WHERE ${daysWhere(filter, span)})`
        : sql`0`
    } AS days, ${edges ? sql`(SELECT count(*) FROM ${exchangeTrades} WHERE ${edges})` : sql`0`} AS edges
      OFFSET 0) AS parts`;
  }

  /**
   * Where a page `offset` rows deep starts, as a query of one row or none: the day its first row falls
   * in, as the instant that day ends (`before`) and the rows newer than that (`newer`: the trades after
   * the window's whole days, then whole days). The page then skips only the rows of that day that come
   * before it. The days are summed oldest first, in their index's order, and no further than the
   * page's day: a page near the end of a long history reads a few of its days, not all of them again
   * (the total has read them once). `daysTotal` is the sum of the window's whole days. (Walking from the
   * newest end too, whichever is nearer, made the statement dearer to plan than the days it saved.)
   */
  function pageStartQuery(filter: TradeFilter, span: DaySpan, offset: number, daysTotal: SQL): SQL {
    const newestEdge = span.past
      ? sql`(SELECT count(*) FROM ${exchangeTrades}
          WHERE ${and(
            where(filter),
            gte(exchangeTrades.tradeTimestamp, sql`${span.past}::timestamp AT TIME ZONE 'UTC'`),
          )})`
      : sql`0`;
    const days = sql`SELECT day, sum(total_trades) AS n FROM ${exchangeTradeDays} WHERE ${daysWhere(filter, span)}
      GROUP BY day`;
    return sql`SELECT (day + 1)::timestamp AT TIME ZONE 'UTC' AS before, newer FROM (
        SELECT day, ${newestEdge} + ${daysTotal} - sum(n) OVER (ORDER BY day ASC ROWS UNBOUNDED PRECEDING) AS newer
        FROM (${days} ORDER BY day ASC) AS d
      ) AS w WHERE newer <= ${offset} ORDER BY day ASC LIMIT 1`;
  }

  return {
    /** How many of the rows were new; the rest were already stored. */
    async insertNew(rows: NewTrade[], executor: DbExecutor = db): Promise<number> {
      if (rows.length === 0) return 0;
      const inserted = await executor
        .insert(exchangeTrades)
        .values(rows)
        .onConflictDoNothing()
        .returning({ id: exchangeTrades.id });
      return inserted.length;
    },

    /**
     * A page of the window's trades, newest first, with how many there are: one statement, whose cost
     * follows the page and the days, not the trades (a deep page starts at its day, decision 124).
     */
    async list(
      filter: TradeFilter,
      page: { limit: number; offset: number },
    ): Promise<{ rows: TradeRow[]; total: number }> {
      const span = wholeDays(filter.start, filter.end);
      const deep = span !== null && page.offset >= DEEP_OFFSET;
      const start = deep
        ? sql`, start AS (${pageStartQuery(filter, span, page.offset, sql`(SELECT days FROM total)`)})`
        : sql``;
      const before = deep
        ? sql`AND ${exchangeTrades.tradeTimestamp} < coalesce((SELECT before FROM start), 'infinity')`
        : sql``;
      const skip = deep
        ? sql`(${page.offset}::bigint - coalesce((SELECT newer FROM start), 0))::bigint`
        : sql`${rowOffset(page.offset)}::bigint`;
      const raw = rowsOf<ListedTrade>(
        await db.execute(sql`
          WITH total AS (${totalQuery(filter, span)})${start}
          SELECT total.n AS records, page.* FROM total LEFT JOIN LATERAL (
            SELECT ${tradeColumns} FROM ${exchangeTrades}
            WHERE ${where(filter)} ${before}
            ORDER BY ${descending(exchangeTrades.tradeTimestamp)}, ${descending(exchangeTrades.id)}
            LIMIT ${page.limit} OFFSET ${skip}
          ) AS page ON true
          ORDER BY page."tradeTimestamp" DESC NULLS LAST, page.id DESC NULLS LAST`),
      );
      const rows: TradeRow[] = [];
      for (const { records: _, id, tradeTimestamp, createdAt, ...row } of raw) {
        if (id !== null) {
          rows.push({ ...row, id, tradeTimestamp: new Date(tradeTimestamp), createdAt: new Date(createdAt) });
        }
      }
      return { rows, total: Number(raw[0]?.records ?? 0) };
    },

    /** Volume is the quote amount traded (Σ total); fees are summed whatever their currency. */
    async stats(filter: TradeFilter): Promise<TradeStatsRow> {
      const span = wholeDays(filter.start, filter.end);
      const parts: SQL[] = [];
      if (span) {
        parts.push(sql`SELECT total_trades AS n, buy_count AS buys, sell_count AS sells, synced_count AS synced,
          failed_count AS failed,
          total_volume AS volume, total_fees AS fees, first_trade AS first, last_trade AS last
          FROM ${exchangeTradeDays} WHERE ${daysWhere(filter, span)}`);
      }
      const edges = edgesWhere(filter, span);
      if (edges) {
        parts.push(sql`SELECT 1 AS n, (side = 'buy')::int AS buys, (side = 'sell')::int AS sells,
          (sync_status = 'synced')::int AS synced, (sync_status = 'failed')::int AS failed,
          total AS volume, fee AS fees, trade_timestamp AS first, trade_timestamp AS last
          FROM ${exchangeTrades} WHERE ${edges}`);
      }
      const [row] = await db
        .execute(sql`
        SELECT coalesce(sum(n), 0)::int AS total_trades, coalesce(sum(buys), 0)::int AS buy_count,
          coalesce(sum(sells), 0)::int AS sell_count,
          coalesce(sum(synced), 0)::int AS synced_count, coalesce(sum(failed), 0)::int AS failed_count,
          coalesce(sum(volume), 0)::text AS total_volume, coalesce(sum(fees), 0)::text AS total_fees,
          min(first) AS first_trade, max(last) AS last_trade
        FROM (${sql.join(parts, sql` UNION ALL `)}) AS figures`)
        .then((r) => rowsOf<TradeStatsRow>(r));
      return row!;
    },

    /**
     * The newest stored trade of the credential's market, where its sync continues: its highest numeric id
     * (Binance numbers a market's trades in order), its time, and the ids stored at that time (at most
     * MAX_BOUNDARY_IDS: a `since` cursor's page answers them again). One statement, the ids read at the
     * time it finds (docs/decisions/941). "At that time" is within its millisecond, as a `Date` holds it.
     */
    async newest(
      credentialId: string,
      symbol: string,
    ): Promise<{ maxId: string | null; newestAt: Date | null; idsAtNewest: string[] }> {
      const market = and(eq(exchangeTrades.credentialId, credentialId), eq(exchangeTrades.symbol, symbol));
      const [row] = rowsOf<{ max_id: string | null; newest_at: Date | string | null; ids: string[] | null }>(
        await db.execute(sql`
          WITH newest AS (
            SELECT max(CASE WHEN ${exchangeTrades.exchangeTradeId} ~ '^[0-9]{1,30}$'
                     THEN ${exchangeTrades.exchangeTradeId}::numeric END)::text AS max_id,
                   max(${exchangeTrades.tradeTimestamp}) AS newest_at
            FROM ${exchangeTrades} WHERE ${market}
          )
          SELECT newest.max_id, newest.newest_at,
            ARRAY(SELECT ${exchangeTrades.exchangeTradeId} FROM ${exchangeTrades}
                  WHERE ${market}
                    AND ${exchangeTrades.tradeTimestamp} >= date_trunc('milliseconds', newest.newest_at)
                  LIMIT ${MAX_BOUNDARY_IDS}) AS ids
          FROM newest`),
      );
      const newestAt = row?.newest_at ? new Date(row.newest_at) : null;
      return { maxId: row?.max_id ?? null, newestAt, idsAtNewest: newestAt ? (row?.ids ?? []) : [] };
    },

    /**
     * A user's complete (synced) trades, oldest first, for the portfolio's ledger; with `createdAfter`,
     * those stored in a later millisecond (the database keeps microseconds, a Date milliseconds).
     */
    async ledgerRows(
      userId: string,
      createdAfter?: Date,
    ): Promise<
      Pick<
        TradeRow,
        | 'id'
        | 'exchange'
        | 'symbol'
        | 'side'
        | 'price'
        | 'amount'
        | 'total'
        | 'fee'
        | 'feeCurrency'
        | 'tradeTimestamp'
        | 'createdAt'
      >[]
    > {
      return db
        .select({
          id: exchangeTrades.id,
          exchange: exchangeTrades.exchange,
          symbol: exchangeTrades.symbol,
          side: exchangeTrades.side,
          price: exchangeTrades.price,
          amount: exchangeTrades.amount,
          total: exchangeTrades.total,
          fee: exchangeTrades.fee,
          feeCurrency: exchangeTrades.feeCurrency,
          tradeTimestamp: exchangeTrades.tradeTimestamp,
          createdAt: exchangeTrades.createdAt,
        })
        .from(exchangeTrades)
        .where(
          and(
            eq(exchangeTrades.userId, userId),
            eq(exchangeTrades.syncStatus, 'synced'),
            createdAfter ? gte(exchangeTrades.createdAt, new Date(createdAfter.getTime() + 1)) : undefined,
          ),
        )
        .orderBy(exchangeTrades.tradeTimestamp, exchangeTrades.id);
    },

    /**
     * How many complete trades of a user were stored within [from, to] (to's whole millisecond), and the
     * database's clock when the count began (`now()`: its statement's start, before its snapshot).
     */
    async countCreatedBetween(userId: string, from: Date, to: Date): Promise<{ count: number; at: Date }> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int`, at: sql<Date>`now()`.mapWith(exchangeTrades.createdAt) })
        .from(exchangeTrades)
        .where(
          and(
            eq(exchangeTrades.userId, userId),
            gte(exchangeTrades.createdAt, from),
            lt(exchangeTrades.createdAt, new Date(to.getTime() + 1)),
            eq(exchangeTrades.syncStatus, 'synced'),
          ),
        );
      return { count: Number(row!.n), at: row!.at };
    },
  };
}

export type TradesRepository = ReturnType<typeof createTradesRepository>;
