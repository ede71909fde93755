// The only SQL over strategies and their transitions.
import { and, asc, count, eq, gte, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import type { StrategyStatus } from './strategies.domain.ts';
import { strategies, strategyTransitions } from './strategies.tables.ts';
import { descending } from '../../platform/db/order.ts';

export type StrategyRow = typeof strategies.$inferSelect;
type NewStrategy = typeof strategies.$inferInsert;
export type TransitionRow = typeof strategyTransitions.$inferSelect;

const newestFirst = [descending(strategies.createdAt), descending(strategies.id)];

export function createStrategiesRepository(db: DbExecutor) {
  return {
    async insert(row: NewStrategy, executor: DbExecutor = db): Promise<StrategyRow> {
      const [created] = await executor.insert(strategies).values(row).returning();
      return created!;
    },

    async list(
      status: StrategyStatus | undefined,
      offset: number,
      limit: number,
    ): Promise<{ rows: StrategyRow[]; total: number }> {
      const where = status ? eq(strategies.status, status) : undefined;
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

    async transitionsOf(id: string, limit: number): Promise<TransitionRow[]> {
      return db
        .select()
        .from(strategyTransitions)
        .where(eq(strategyTransitions.strategyId, id))
        .orderBy(descending(strategyTransitions.at), descending(strategyTransitions.id))
        .limit(limit);
    },

    /** Strategies in paper trading, longest in paper first, so the oldest candidates win a scarce hour. */
    async inPaper(): Promise<StrategyRow[]> {
      return db
        .select()
        .from(strategies)
        .where(eq(strategies.status, 'paper'))
        .orderBy(sql`${strategies.paperStartedAt} ASC NULLS LAST`, asc(strategies.id));
    },

    async transitionsSince(since: Date, executor: DbExecutor = db): Promise<number> {
      const [row] = await executor
        .select({ n: count() })
        .from(strategyTransitions)
        .where(gte(strategyTransitions.at, since));
      return Number(row?.n ?? 0);
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
