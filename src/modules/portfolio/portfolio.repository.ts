// Closed candles kept by the portfolio: read a window, store what the venue sent.
import { and, eq, gte, lte, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import type { LedgerMarks } from './ledger.domain.ts';
import type { StoredLedger } from './ledger-state.domain.ts';
import { portfolioCandles, portfolioLedgers } from './portfolio.tables.ts';

export function createPortfolioRepository(db: DbExecutor) {
  return {
    async closes(symbol: string, interval: string, start: Date, end: Date): Promise<Map<number, string>> {
      const rows = await db
        .select({ openTime: portfolioCandles.openTime, close: sql<string>`${portfolioCandles.close}::text` })
        .from(portfolioCandles)
        .where(
          and(
            eq(portfolioCandles.symbol, symbol),
            eq(portfolioCandles.interval, interval),
            gte(portfolioCandles.openTime, start),
            lte(portfolioCandles.openTime, end),
          ),
        );
      return new Map(rows.map((r) => [r.openTime.getTime(), r.close]));
    },

    async store(
      symbol: string,
      interval: string,
      candles: readonly { openTime: number; close: string }[],
    ): Promise<void> {
      if (candles.length === 0) return;
      await db
        .insert(portfolioCandles)
        .values(candles.map((c) => ({ symbol, interval, openTime: new Date(c.openTime), close: c.close })))
        .onConflictDoNothing();
    },
  };
}

export type PortfolioRepository = ReturnType<typeof createPortfolioRepository>;

export function createLedgerStore(db: DbExecutor) {
  return {
    /** The marks alone (a small read): whether a ledger held in memory is still the stored one. */
    async marks(userId: string, quote: string): Promise<LedgerMarks | undefined> {
      const [row] = await db
        .select({
          trades: portfolioLedgers.trades,
          transfers: portfolioLedgers.transfers,
          watermark: portfolioLedgers.watermark,
          marginCount: portfolioLedgers.marginCount,
          lastEventAt: portfolioLedgers.lastEventAt,
        })
        .from(portfolioLedgers)
        .where(and(eq(portfolioLedgers.userId, userId), eq(portfolioLedgers.quote, quote)));
      return row;
    },

    async load(userId: string, quote: string): Promise<{ state: StoredLedger; marks: LedgerMarks } | undefined> {
      const [row] = await db
        .select()
        .from(portfolioLedgers)
        .where(and(eq(portfolioLedgers.userId, userId), eq(portfolioLedgers.quote, quote)));
      if (!row) return undefined;
      return {
        state: row.state,
        marks: {
          trades: row.trades,
          transfers: row.transfers,
          watermark: row.watermark,
          marginCount: row.marginCount,
          lastEventAt: row.lastEventAt,
        },
      };
    },

    async save(userId: string, quote: string, state: StoredLedger, marks: LedgerMarks): Promise<void> {
      const values = {
        state,
        trades: marks.trades,
        transfers: marks.transfers,
        watermark: marks.watermark,
        marginCount: marks.marginCount,
        lastEventAt: marks.lastEventAt,
        updatedAt: new Date(),
      };
      await db
        .insert(portfolioLedgers)
        .values({ userId, quote, ...values })
        .onConflictDoUpdate({ target: [portfolioLedgers.userId, portfolioLedgers.quote], set: values });
    },
  };
}

export type LedgerStore = ReturnType<typeof createLedgerStore>;
