// Balance snapshots: one sync row per successful balance sync, one balance row per held currency.
import { and, asc, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { exchangeBalances, exchangeBalanceSyncs } from './exchange.tables.ts';
import { descending } from '../../platform/db/order.ts';

export type BalanceRow = typeof exchangeBalances.$inferSelect;

interface SnapshotInput {
  userId: string;
  exchange: string;
  credentialId: string | null;
  syncedAt: Date;
  balances: { currency: string; free: string; locked: string; total: string }[];
}

export function createBalancesRepository(db: DbExecutor) {
  return {
    async recordSnapshot(input: SnapshotInput, executor: DbExecutor = db): Promise<string> {
      const [sync] = await executor
        .insert(exchangeBalanceSyncs)
        .values({
          userId: input.userId,
          exchange: input.exchange,
          credentialId: input.credentialId,
          currenciesSynced: input.balances.length,
          syncedAt: input.syncedAt,
        })
        .returning({ id: exchangeBalanceSyncs.id });
      if (input.balances.length > 0) {
        await executor.insert(exchangeBalances).values(
          input.balances.map((b) => ({
            syncId: sync!.id,
            userId: input.userId,
            exchange: input.exchange,
            currency: b.currency,
            free: b.free,
            locked: b.locked,
            total: b.total,
            syncTimestamp: input.syncedAt,
          })),
        );
      }
      return sync!.id;
    },

    /** The rows of the user's latest sync on the venue (of that credential, when given). */
    async latest(
      userId: string,
      exchange: string,
      credentialId?: string,
    ): Promise<{ syncedAt: Date; rows: BalanceRow[] } | undefined> {
      const conditions = [eq(exchangeBalanceSyncs.userId, userId), eq(exchangeBalanceSyncs.exchange, exchange)];
      if (credentialId) conditions.push(eq(exchangeBalanceSyncs.credentialId, credentialId));
      const [sync] = await db
        .select()
        .from(exchangeBalanceSyncs)
        .where(and(...conditions))
        .orderBy(descending(exchangeBalanceSyncs.syncedAt), descending(exchangeBalanceSyncs.id))
        .limit(1);
      if (!sync) return undefined;
      const rows = await db
        .select()
        .from(exchangeBalances)
        .where(eq(exchangeBalances.syncId, sync.id))
        .orderBy(asc(exchangeBalances.currency));
      return { syncedAt: sync.syncedAt, rows };
    },

    /** One currency's snapshots between two dates, newest first, and how many there are in all. */
    async history(query: {
      userId: string;
      exchange: string;
      currency: string;
      start?: Date;
      end?: Date;
      limit: number;
    }) {
      const conditions: SQL[] = [
        eq(exchangeBalances.userId, query.userId),
        eq(exchangeBalances.exchange, query.exchange),
        eq(exchangeBalances.currency, query.currency),
      ];
      if (query.start) conditions.push(gte(exchangeBalances.syncTimestamp, query.start));
      if (query.end) conditions.push(lte(exchangeBalances.syncTimestamp, query.end));
      const where = and(...conditions);
      const [rows, [count]] = await Promise.all([
        db
          .select()
          .from(exchangeBalances)
          .where(where)
          .orderBy(descending(exchangeBalances.syncTimestamp), descending(exchangeBalances.id))
          .limit(query.limit),
        db.select({ n: sql<number>`count(*)::int` }).from(exchangeBalances).where(where),
      ]);
      return { rows, total: Number(count?.n ?? 0) };
    },

    /**
     * One user's holdings: the rows of the latest sync of every (venue, credential), optionally of one
     * venue, not summed (the portfolio sums them exactly).
     */
    async latestForUser(
      userId: string,
      exchange?: string,
    ): Promise<{ exchange: string; currency: string; total: string; syncedAt: Date }[]> {
      const conditions: SQL[] = [eq(exchangeBalanceSyncs.userId, userId)];
      if (exchange) conditions.push(eq(exchangeBalanceSyncs.exchange, exchange));
      const latest = db
        .selectDistinctOn([exchangeBalanceSyncs.exchange, exchangeBalanceSyncs.credentialId], {
          id: exchangeBalanceSyncs.id,
        })
        .from(exchangeBalanceSyncs)
        .where(and(...conditions))
        .orderBy(
          exchangeBalanceSyncs.exchange,
          exchangeBalanceSyncs.credentialId,
          descending(exchangeBalanceSyncs.syncedAt),
        )
        .as('latest');
      return db
        .select({
          exchange: exchangeBalances.exchange,
          currency: exchangeBalances.currency,
          total: sql<string>`${exchangeBalances.total}::text`,
          syncedAt: exchangeBalances.syncTimestamp,
        })
        .from(exchangeBalances)
        .innerJoin(latest, eq(latest.id, exchangeBalances.syncId))
        .orderBy(asc(exchangeBalances.exchange), asc(exchangeBalances.currency));
    },
  };
}

export type BalancesRepository = ReturnType<typeof createBalancesRepository>;
