// Trades synced from venues. Inserts never duplicate (unique venue id per user, venue and symbol);
// sums are taken in SQL over numeric, so totals stay exact.
import { and, eq, gte, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import { rowOffset, type DbExecutor } from '../../platform/db/database.ts';
import { exchangeTrades } from './exchange.tables.ts';
import { descending } from '../../platform/db/order.ts';

export type TradeRow = typeof exchangeTrades.$inferSelect;
export type NewTrade = typeof exchangeTrades.$inferInsert;

export interface TradeFilter {
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

function where(filter: TradeFilter): SQL | undefined {
  const conditions: SQL[] = [eq(exchangeTrades.userId, filter.userId)];
  if (filter.exchange) conditions.push(eq(exchangeTrades.exchange, filter.exchange));
  if (filter.symbol) {
    const compact = filter.symbol.toUpperCase().replace(/[^A-Z0-9]/g, '');
    conditions.push(sql`replace(${exchangeTrades.symbol}, '/', '') = ${compact}`);
  }
  if (filter.start) conditions.push(gte(exchangeTrades.tradeTimestamp, filter.start));
  if (filter.end) conditions.push(lte(exchangeTrades.tradeTimestamp, filter.end));
  return and(...conditions);
}

export function createTradesRepository(db: DbExecutor) {
  return {
    /** How many of the rows were new; the rest were already stored. */
    async insertNew(rows: NewTrade[], executor: DbExecutor = db): Promise<number> {
      if (rows.length === 0) return 0;
      const inserted = await executor.insert(exchangeTrades).values(rows).onConflictDoNothing().returning({ id: exchangeTrades.id });
      return inserted.length;
    },

    async list(filter: TradeFilter, page: { limit: number; offset: number }): Promise<{ rows: TradeRow[]; total: number }> {
      const condition = where(filter);
      const [rows, [count]] = await Promise.all([
        db
          .select()
          .from(exchangeTrades)
          .where(condition)
          .orderBy(descending(exchangeTrades.tradeTimestamp), descending(exchangeTrades.id))
          .limit(page.limit)
          .offset(rowOffset(page.offset)),
        db.select({ n: sql<number>`count(*)::int` }).from(exchangeTrades).where(condition),
      ]);
      return { rows, total: Number(count?.n ?? 0) };
    },

    /** Volume is the quote amount traded (Σ total); fees are summed whatever their currency. */
    async stats(filter: TradeFilter): Promise<TradeStatsRow> {
      const [row] = await db
        .select({
          total_trades: sql<number>`count(*)::int`,
          buy_count: sql<number>`count(*) FILTER (WHERE ${exchangeTrades.side} = 'buy')::int`,
          sell_count: sql<number>`count(*) FILTER (WHERE ${exchangeTrades.side} = 'sell')::int`,
          synced_count: sql<number>`count(*) FILTER (WHERE ${exchangeTrades.syncStatus} = 'synced')::int`,
          failed_count: sql<number>`count(*) FILTER (WHERE ${exchangeTrades.syncStatus} = 'failed')::int`,
          total_volume: sql<string>`coalesce(sum(${exchangeTrades.total}), 0)::text`,
          total_fees: sql<string>`coalesce(sum(${exchangeTrades.fee}), 0)::text`,
          first_trade: sql<Date | string | null>`min(${exchangeTrades.tradeTimestamp})`,
          last_trade: sql<Date | string | null>`max(${exchangeTrades.tradeTimestamp})`,
        })
        .from(exchangeTrades)
        .where(where(filter));
      return row!;
    },

    /**
     * Where a credential's sync of a market continues: its highest numeric venue trade id (Binance
     * numbers a market's trades in order) and its newest trade time.
     */
    async newest(credentialId: string, symbol: string): Promise<{ maxId: string | null; newestAt: Date | null }> {
      const [row] = await db
        .select({
          maxId: sql<string | null>`max(CASE WHEN ${exchangeTrades.exchangeTradeId} ~ '^[0-9]{1,30}$' THEN ${exchangeTrades.exchangeTradeId}::numeric END)::text`,
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
    async ledgerRows(userId: string, createdAfter?: Date): Promise<Pick<TradeRow, 'id' | 'exchange' | 'symbol' | 'side' | 'price' | 'amount' | 'total' | 'fee' | 'feeCurrency' | 'tradeTimestamp' | 'createdAt'>[]> {
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
        .where(and(eq(exchangeTrades.userId, userId), eq(exchangeTrades.syncStatus, 'synced'), createdAfter ? gte(exchangeTrades.createdAt, new Date(createdAfter.getTime() + 1)) : undefined))
        .orderBy(exchangeTrades.tradeTimestamp, exchangeTrades.id);
    },

    /** How many complete trades of a user were stored within [from, to] (to's whole millisecond). */
    async countCreatedBetween(userId: string, from: Date, to: Date): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(exchangeTrades)
        .where(and(eq(exchangeTrades.userId, userId), gte(exchangeTrades.createdAt, from), lt(exchangeTrades.createdAt, new Date(to.getTime() + 1)), eq(exchangeTrades.syncStatus, 'synced')));
      return Number(row?.n ?? 0);
    },

    async countForUsers(userIds: readonly string[]): Promise<Map<string, number>> {
      if (userIds.length === 0) return new Map();
      const rows = await db
        .select({ userId: exchangeTrades.userId, n: sql<number>`count(*)::int` })
        .from(exchangeTrades)
        .where(inArray(exchangeTrades.userId, [...userIds]))
        .groupBy(exchangeTrades.userId);
      return new Map(rows.map((r) => [r.userId, Number(r.n)]));
    },
  };
}

export type TradesRepository = ReturnType<typeof createTradesRepository>;
