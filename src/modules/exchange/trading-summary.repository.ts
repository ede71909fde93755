// What the admin user list shows of each user's trading: the trade count the trade triggers keep, and
// the totals of the user's latest balance snapshots. One SQL value per user, so a list of users can
// carry it as a column of its own statement (decision 194), or read for given users in one statement.
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { executePrepared } from '../../platform/db/prepared.ts';
import { isUuid } from '../../platform/ids.ts';
import { exchangeBalances, exchangeBalanceSyncs, exchangeTradeCounts } from './exchange.tables.ts';

/** One user's figures, as the database gives them: amounts as exact decimal text. */
export interface TradingFigures {
  /** Null when the user never traded. */
  trades: string | null;
  /** The total held of each currency; null when the user has no snapshot. */
  balances: [currency: string, amount: string][] | null;
}

/**
 * The figures of the user whose id is `userId` (an SQL expression: a column of the caller's statement),
 * as one JSON value. The latest syncs come from their index, then those syncs' balances by their own:
 * index lookups for that user, never a scan of every balance row. The balances' subquery is kept a
 * subquery (`OFFSET 0`): flattened into a join, the planner would hash every balance row of a table it
 * thinks small (decision 185).
 */
export function tradingFiguresOf(userId: SQL): SQL {
  return sql`json_build_object(
    'trades', (SELECT ${exchangeTradeCounts.totalTrades}::text FROM ${exchangeTradeCounts} WHERE ${exchangeTradeCounts.userId} = ${userId}),
    'balances', (
      SELECT json_agg(json_build_array(held.currency, held.amount) ORDER BY held.currency) FROM (
        SELECT b.currency, sum(b.total)::text AS amount
        FROM (
          SELECT DISTINCT ON (s.exchange, s.credential_id) s.id
          FROM ${exchangeBalanceSyncs} AS s
          WHERE s.user_id = ${userId}
          ORDER BY s.exchange, s.credential_id, s.synced_at DESC NULLS LAST
        ) AS latest
        CROSS JOIN LATERAL (SELECT currency, total FROM ${exchangeBalances} WHERE sync_id = latest.id OFFSET 0) AS b
        GROUP BY b.currency
      ) AS held
    ))`;
}

export function createTradingSummaryRepository(db: DbExecutor) {
  return {
    /** The figures of the given users, by id; a malformed id has none. */
    async figuresForUsers(userIds: readonly string[]): Promise<Map<string, TradingFigures>> {
      // One array parameter: the statement's text and plan are the same for every page size.
      const known = userIds.filter(isUuid);
      if (known.length === 0) return new Map();
      const rows = rowsOf<{ userId: string; figures: TradingFigures }>(
        await executePrepared(
          db,
          'trading_figures',
          sql`SELECT asked.id AS "userId", ${tradingFiguresOf(sql`asked.id`)} AS figures
            FROM unnest(${`{${known.join(',')}}`}::uuid[]) AS asked(id)`,
        ),
      );
      return new Map(rows.map((row) => [row.userId, row.figures]));
    },
  };
}

export type TradingSummaryRepository = ReturnType<typeof createTradingSummaryRepository>;
