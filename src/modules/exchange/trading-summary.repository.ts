// The admin user list's trading figures for a page of users, in one statement: each user's stored
// trades (from the trade days the database keeps) and holdings per currency from the latest balance
// sync of every (venue, credential), summed across them.
import { sql } from 'drizzle-orm';
import { rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { exchangeBalances, exchangeBalanceSyncs, exchangeTradeDays } from './exchange.tables.ts';

export interface TradingFigures {
  trades: Map<string, number>;
  holdings: { userId: string; currency: string; total: string }[];
}

export function createTradingSummaryRepository(db: DbExecutor) {
  return {
    async figures(userIds: readonly string[]): Promise<TradingFigures> {
      const trades = new Map<string, number>();
      const holdings: TradingFigures['holdings'] = [];
      if (userIds.length === 0) return { trades, holdings };
      // The ids are the users table's own uuids: one array parameter, found through each table's index.
      const ids = sql`${`{${userIds.join(',')}}`}::uuid[]`;
      const rows = rowsOf<{ figure: 'trades' | 'holding'; userId: string; currency: string | null; value: string }>(
        await db.execute(sql`
          SELECT 'trades' AS figure, d.user_id AS "userId", NULL AS currency, sum(d.total_trades)::text AS value
          FROM ${exchangeTradeDays} AS d
          WHERE d.user_id = ANY (${ids})
          GROUP BY d.user_id
          UNION ALL
          SELECT 'holding', b.user_id, b.currency, sum(b.total)::text
          FROM (
            SELECT DISTINCT ON (s.user_id, s.exchange, s.credential_id) s.id
            FROM ${exchangeBalanceSyncs} AS s
            WHERE s.user_id = ANY (${ids})
            ORDER BY s.user_id, s.exchange, s.credential_id, s.synced_at DESC NULLS LAST
          ) AS latest
          CROSS JOIN LATERAL (SELECT user_id, currency, total FROM ${exchangeBalances} WHERE sync_id = latest.id) AS b
          GROUP BY b.user_id, b.currency`),
      );
      for (const row of rows) {
        if (row.figure === 'trades') trades.set(row.userId, Number(row.value));
        else holdings.push({ userId: row.userId, currency: row.currency!, total: row.value });
      }
      return { trades, holdings };
    },
  };
}

export type TradingSummaryRepository = ReturnType<typeof createTradingSummaryRepository>;
