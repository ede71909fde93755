// The only SQL over strategies and their transitions.
import { and, asc, count, eq, getTableColumns, gte, inArray, lt, lte, notInArray, type SQL, sql } from 'drizzle-orm';
import { ADVISORY_LOCK_NAMESPACE } from '../../platform/db/advisory-locks.ts';
import type { DbExecutor } from '../../platform/db/database.ts';
import type { StrategyStatus } from './strategies.domain.ts';
import type { LotWrites, StoredLot } from './metrics-lots.domain.ts';
import {
  promotableFigures,
  strategies,
  strategyFills,
  strategyLots,
  strategyStatusCounts,
  strategyTransitions,
} from './strategies.tables.ts';
import { descending } from '../../platform/db/order.ts';

export type StrategyRow = typeof strategies.$inferSelect;
type NewStrategy = typeof strategies.$inferInsert;
export type TransitionRow = typeof strategyTransitions.$inferSelect;
export type StrategyFillRow = typeof strategyFills.$inferSelect;

const newestFirst = [descending(strategies.createdAt), descending(strategies.id)];

export function createStrategiesRepository(db: DbExecutor) {
  return {
    async insert(row: NewStrategy, executor: DbExecutor = db): Promise<StrategyRow> {
      const [created] = await executor.insert(strategies).values(row).returning();
      return created!;
    },

    /** A page, newest first: of every owner, or of one (`ownerUserId`). */
    async list(
      status: StrategyStatus | undefined,
      offset: number,
      limit: number,
      ownerUserId?: string,
    ): Promise<{ rows: StrategyRow[]; total: number }> {
      const where = and(
        status ? eq(strategies.status, status) : undefined,
        ownerUserId ? eq(strategies.ownerUserId, ownerUserId) : undefined,
      );
      const [rows, [counted]] = await Promise.all([
        db
          .select()
          .from(strategies)
          .where(where)
          .orderBy(...newestFirst)
          .limit(limit)
          .offset(offset),
        db.select({ n: count() }).from(strategies).where(where),
      ]);
      return { rows, total: Number(counted?.n ?? 0) };
    },

    async find(id: string): Promise<StrategyRow | undefined> {
      const [row] = await db.select().from(strategies).where(eq(strategies.id, id)).limit(1);
      return row;
    },

    async isOwnedBy(id: string, userId: string): Promise<boolean> {
      const [row] = await db
        .select({ id: strategies.id })
        .from(strategies)
        .where(and(eq(strategies.id, id), eq(strategies.ownerUserId, userId)))
        .limit(1);
      return row !== undefined;
    },

    /**
     * Locks the strategy's row for the caller's transaction (its figures change one report at a time) and
     * answers its figures and what they were computed from; undefined for an unknown strategy.
     */
    async lockFigures(
      id: string,
      executor: DbExecutor,
    ): Promise<Pick<StrategyRow, 'metrics' | 'metricsState'> | undefined> {
      const [row] = await executor
        .select({ metrics: strategies.metrics, metricsState: strategies.metricsState })
        .from(strategies)
        .where(eq(strategies.id, id))
        .for('update');
      return row;
    },

    /** Stores fills not stored yet (by trade id); answers those it stored. */
    async insertFills(rows: (typeof strategyFills.$inferInsert)[], executor: DbExecutor): Promise<StrategyFillRow[]> {
      if (rows.length === 0) return [];
      return executor.insert(strategyFills).values(rows).onConflictDoNothing().returning();
    },

    /** Of `orderIds`, those with a fill of the strategy other than `tradeIds`: down (strategy_id, order_id). */
    async ordersFilledBefore(
      id: string,
      orderIds: readonly string[],
      tradeIds: readonly string[],
      executor: DbExecutor,
    ): Promise<Set<string>> {
      if (orderIds.length === 0) return new Set();
      const rows = await executor
        .selectDistinct({ orderId: strategyFills.orderId })
        .from(strategyFills)
        .where(
          and(
            eq(strategyFills.strategyId, id),
            inArray(strategyFills.orderId, [...orderIds]),
            notInArray(strategyFills.tradeId, [...tradeIds]),
          ),
        );
      return new Set(rows.map((row) => row.orderId));
    },

    async fillsOf(id: string, executor: DbExecutor = db): Promise<StrategyFillRow[]> {
      return executor
        .select()
        .from(strategyFills)
        .where(eq(strategyFills.strategyId, id))
        .orderBy(asc(strategyFills.at), asc(strategyFills.tradeId));
    },

    async setMetrics(
      id: string,
      figures: Pick<StrategyRow, 'metrics' | 'metricsState'>,
      at: Date,
      executor: DbExecutor,
    ): Promise<void> {
      await executor
        .update(strategies)
        .set({ metrics: figures.metrics, metricsState: figures.metricsState, updatedAt: at })
        .where(eq(strategies.id, id));
    },

    /** At most `limit` of the strategy's open lots of `symbol` from number `from` on, oldest first: down the key. */
    async lotsFrom(
      id: string,
      symbol: string,
      from: number,
      limit: number,
      executor: DbExecutor,
    ): Promise<[string, string][]> {
      const rows = await executor
        .select({ amount: strategyLots.amount, cost: strategyLots.cost })
        .from(strategyLots)
        .where(and(eq(strategyLots.strategyId, id), eq(strategyLots.symbol, symbol), gte(strategyLots.seq, from)))
        .orderBy(asc(strategyLots.seq))
        .limit(limit);
      return rows.map((row) => [row.amount, row.cost]);
    },

    /** Writes what a fold changed in the strategy's open lots (decision 930). */
    async writeLots(id: string, writes: LotWrites, executor: DbExecutor): Promise<void> {
      for (const { symbol, seq } of writes.closed) {
        await executor
          .delete(strategyLots)
          .where(and(eq(strategyLots.strategyId, id), eq(strategyLots.symbol, symbol), lt(strategyLots.seq, seq)));
      }
      for (const lot of writes.changed) {
        await executor
          .update(strategyLots)
          .set({ amount: lot.amount, cost: lot.cost })
          .where(
            and(eq(strategyLots.strategyId, id), eq(strategyLots.symbol, lot.symbol), eq(strategyLots.seq, lot.seq)),
          );
      }
      await insertLots(executor, id, writes.opened);
    },

    /** Replaces every open lot of the strategy (its figures computed again from all its fills). */
    async replaceLots(id: string, lots: readonly StoredLot[], executor: DbExecutor): Promise<void> {
      await executor.delete(strategyLots).where(eq(strategyLots.strategyId, id));
      await insertLots(executor, id, lots);
    },

    async transitionsOf(id: string, limit: number): Promise<TransitionRow[]> {
      return db
        .select()
        .from(strategyTransitions)
        .where(eq(strategyTransitions.strategyId, id))
        .orderBy(descending(strategyTransitions.at), descending(strategyTransitions.id))
        .limit(limit);
    },

    /** How many strategies are in paper trading: one row the database keeps (decision 931), none counted. */
    async countInPaper(): Promise<number> {
      const [row] = await db
        .select({ n: strategyStatusCounts.n })
        .from(strategyStatusCounts)
        .where(eq(strategyStatusCounts.status, 'paper'));
      return row?.n ?? 0;
    },

    /**
     * The strategies in paper that meet every promotion rule at `now` (in paper since `startedBy` or
     * before, figures as PROMOTION_RULES asks), read down the partial index of those that meet the
     * figure rules (decision 851): `total` of them, and at most `perOwner` of each owner (platform
     * strategies are one owner), longest in paper first. No owner is promoted more than `perOwner`
     * times a run, so the rest need not be loaded.
     */
    async promotable(startedBy: Date, perOwner: number): Promise<{ rows: StrategyRow[]; total: number }> {
      const where = and(promotableFigures(strategies), lte(strategies.paperStartedAt, startedBy));
      const ranked = db
        .select({
          ...getTableColumns(strategies),
          rank: sql<number>`row_number() OVER (PARTITION BY ${strategies.ownerUserId}
            ORDER BY ${strategies.paperStartedAt}, ${strategies.id})`.as('rank'),
        })
        .from(strategies)
        .where(where)
        .as('ranked');
      const [ranks, [counted]] = await Promise.all([
        perOwner <= 0
          ? Promise.resolve([])
          : db
              .select()
              .from(ranked)
              .where(lte(ranked.rank, perOwner))
              .orderBy(asc(ranked.paperStartedAt), asc(ranked.id)),
        db.select({ n: count() }).from(strategies).where(where),
      ]);
      const rows = ranks.map(({ rank: _rank, ...row }): StrategyRow => row);
      return { rows, total: Number(counted?.n ?? 0) };
    },

    async transitionsSince(since: Date, executor: DbExecutor = db): Promise<number> {
      const [row] = await executor
        .select({ n: count() })
        .from(strategyTransitions)
        .where(gte(strategyTransitions.at, since));
      return Number(row?.n ?? 0);
    },

    /**
     * Moves into or out of paper trading since `since`, per owner (null: platform strategies): a user's
     * strategies created straight into paper, and transitions from or to paper (decision 781). With `ownerUserId`, that
     * owner's only; `oldest` is when the first of them was made, for a Retry-After.
     */
    async paperMovesSince(
      since: Date,
      ownerUserId?: string,
      executor: DbExecutor = db,
    ): Promise<{ ownerUserId: string | null; n: number; oldest: Date }[]> {
      const own = (column: SQL) => (ownerUserId === undefined ? sql`true` : sql`${column} = ${ownerUserId}::uuid`);
      const rows = rowsOf<{ owner: string | null; n: number; oldest: Date | string }>(
        await executor.execute(sql`
          SELECT owner, count(*)::int AS n, min(at) AS oldest FROM (
            SELECT s.owner_user_id AS owner, s.created_at AS at FROM ${strategies} s
            WHERE s.created_at >= ${since.toISOString()}::timestamptz AND s.paper_started_at = s.created_at
              AND s.owner_user_id IS NOT NULL AND ${own(sql`s.owner_user_id`)}
            UNION ALL
            SELECT s.owner_user_id, t.at FROM ${strategyTransitions} t JOIN ${strategies} s ON s.id = t.strategy_id
            WHERE t.at >= ${since.toISOString()}::timestamptz AND 'paper' IN (t.from_status, t.to_status)
              AND ${own(sql`s.owner_user_id`)}
          ) moves GROUP BY owner`),
      );
      return rows.map((r) => ({ ownerUserId: r.owner, n: Number(r.n), oldest: new Date(r.oldest) }));
    },

    /** Serialises one owner's moves into paper (their count is checked, then one is made) across instances. */
    async lockOwnerMoves(ownerUserId: string, executor: DbExecutor): Promise<void> {
      await executor.execute(
        sql`SELECT pg_advisory_xact_lock(${ADVISORY_LOCK_NAMESPACE.strategyMoves}::int, hashtext(${ownerUserId}))`,
      );
    },

    /** Moves the strategy only if it is still in `from` (false otherwise) and records the transition. */
    async transition(
      id: string,
      change: { from: StrategyStatus; to: StrategyStatus; at: Date; reason: string },
      executor: DbExecutor,
    ): Promise<boolean> {
      const moved = await executor
        .update(strategies)
        .set({ status: change.to, updatedAt: change.at, ...(change.to === 'live' ? { liveStartedAt: change.at } : {}) })
        .where(and(eq(strategies.id, id), eq(strategies.status, change.from)))
        .returning({ id: strategies.id });
      if (moved.length === 0) return false;
      await executor
        .insert(strategyTransitions)
        .values({ strategyId: id, fromStatus: change.from, toStatus: change.to, at: change.at, reason: change.reason });
      return true;
    },
  };
}

export type StrategiesRepository = ReturnType<typeof createStrategiesRepository>;

/** node-postgres and PGlite both answer `{ rows }` to a raw statement. */
function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/** In statements of at most 1,000 rows (a statement's parameters are bounded). */
async function insertLots(executor: DbExecutor, id: string, lots: readonly StoredLot[]): Promise<void> {
  for (let i = 0; i < lots.length; i += 1_000) {
    await executor.insert(strategyLots).values(lots.slice(i, i + 1_000).map((lot) => ({ strategyId: id, ...lot })));
  }
}
