// Trades synced from venues. Inserts never duplicate (unique venue id per user, venue and symbol);
// sums are taken in SQL over numeric, so totals stay exact. Counts, statistics and deep pages read the
// days the database sums as trades are written (exchange_trade_days, docs/decisions/124) and only the
// trades of the partial days at a window's edges, so their cost follows the days, not the trades.
import { and, eq, gte, inArray, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import { rowOffset, rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { exchangeTradeCounts, exchangeTradeDays, exchangeTrades } from './exchange.tables.ts';
import { descending } from '../../platform/db/order.ts';
import { wholeDays, type DaySpan } from './trade-days.domain.ts';

export type TradeRow = typeof exchangeTrades.$inferSelect;
export type NewTrade = typeof exchangeTrades.$inferInsert;

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
  /** Trades in the window: its whole days' sums and the trades of its edges. */
  async function count(filter: TradeFilter): Promise<number> {
    const span = wholeDays(filter.start, filter.end);
    const edges = edgesWhere(filter, span);
    const [row] = await db
      .execute(
        sql`SELECT (${
          span
            ? sql`(SELECT coalesce(sum(total_trades), 0) FROM ${exchangeTradeDays}
              WHERE ${daysWhere(filter, span)})`
            : sql`0`
        }
          + ${edges ? sql`(SELECT count(*) FROM ${exchangeTrades} WHERE ${edges})` : sql`0`})::int AS n`,
      )
      .then((r) => rowsOf<{ n: number }>(r));
    return Number(row?.n ?? 0);
  }

  /**
   * Where a page `offset` rows deep starts: past `DEEP_OFFSET`, the day its first row falls in is
   * found from the days' counts, newest first (the trades after the window's whole days, then whole
   * days), and the page skips only the rows of that day that come before it.
   */
  async function pageStart(filter: TradeFilter, offset: number): Promise<{ before?: SQL; skip: number }> {
    const span = offset >= DEEP_OFFSET ? wholeDays(filter.start, filter.end) : null;
    if (!span) return { skip: offset };
    const newestEdge = span.past
      ? sql`(SELECT count(*) FROM ${exchangeTrades}
          WHERE ${and(
            where(filter),
            gte(exchangeTrades.tradeTimestamp, sql`${span.past}::timestamp AT TIME ZONE 'UTC'`),
          )})`
      : sql`0`;
    const [row] = await db
      .execute(
        sql`SELECT day::text AS day, newer::bigint AS newer FROM (
          SELECT day, ${newestEdge} + coalesce(sum(sum(total_trades))
            OVER (ORDER BY day DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS newer
          FROM ${exchangeTradeDays} WHERE ${daysWhere(filter, span)} GROUP BY day
        ) AS days WHERE newer <= ${offset} ORDER BY day ASC LIMIT 1`,
      )
      .then((r) => rowsOf<{ day: string; newer: string }>(r));
    if (!row) return { skip: offset };
    return { before: sql`(${row.day}::date + 1)::timestamp AT TIME ZONE 'UTC'`, skip: offset - Number(row.newer) };
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

    async list(
      filter: TradeFilter,
      page: { limit: number; offset: number },
    ): Promise<{ rows: TradeRow[]; total: number }> {
      const [start, total] = await Promise.all([pageStart(filter, page.offset), count(filter)]);
      const condition = start.before
        ? and(where(filter), lt(exchangeTrades.tradeTimestamp, start.before))
        : where(filter);
      const rows = await db
        .select()
        .from(exchangeTrades)
        .where(condition)
        .orderBy(descending(exchangeTrades.tradeTimestamp), descending(exchangeTrades.id))
        .limit(page.limit)
        .offset(rowOffset(start.skip));
      return { rows, total };
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
     * Where a credential's sync of a market continues: its highest numeric venue trade id (Binance
     * numbers a market's trades in order) and its newest trade time.
     */
    async newest(credentialId: string, symbol: string): Promise<{ maxId: string | null; newestAt: Date | null }> {
      const [row] = await db
        .select({
          maxId: sql<string | null>`max(CASE WHEN ${exchangeTrades.exchangeTradeId} ~ '^[0-9]{1,30}$'
            THEN ${exchangeTrades.exchangeTradeId}::numeric END)::text`,
          newestAt: sql<Date | string | null>`max(${exchangeTrades.tradeTimestamp})`,
        })
        .from(exchangeTrades)
        .where(and(eq(exchangeTrades.credentialId, credentialId), eq(exchangeTrades.symbol, symbol)));
      const newestAt = row?.newestAt ? new Date(row.newestAt) : null;
      return { maxId: row?.maxId ?? null, newestAt };
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

    /** How many complete trades of a user were stored within [from, to] (to's whole millisecond). */
    async countCreatedBetween(userId: string, from: Date, to: Date): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(exchangeTrades)
        .where(
          and(
            eq(exchangeTrades.userId, userId),
            gte(exchangeTrades.createdAt, from),
            lt(exchangeTrades.createdAt, new Date(to.getTime() + 1)),
            eq(exchangeTrades.syncStatus, 'synced'),
          ),
        );
      return Number(row?.n ?? 0);
    },

    /** Each user's stored trades, from the counts the database keeps (exchange_trade_counts). */
    async countForUsers(userIds: readonly string[]): Promise<Map<string, number>> {
      if (userIds.length === 0) return new Map();
      const rows = await db
        .select({ userId: exchangeTradeCounts.userId, n: exchangeTradeCounts.totalTrades })
        .from(exchangeTradeCounts)
        .where(inArray(exchangeTradeCounts.userId, [...userIds]));
      return new Map(rows.map((r) => [r.userId, r.n]));
    },
  };
}

export type TradesRepository = ReturnType<typeof createTradesRepository>;
