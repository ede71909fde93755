import { and, eq, gt, max, sql, type SQL } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { agentActivityEvents } from './command-center.tables.ts';
import { descending } from '../../platform/db/order.ts';

export type ActivityRow = typeof agentActivityEvents.$inferSelect;
export type NewActivity = typeof agentActivityEvents.$inferInsert;

export interface AgentStats {
  agentId: string;
  agentName: string | null;
  lastSeenAt: Date | null;
  actionsSince: number;
}

export function createAgentActivityRepository(db: DbExecutor) {
  return {
    async insert(event: NewActivity, executor: DbExecutor = db): Promise<ActivityRow> {
      const [row] = await executor.insert(agentActivityEvents).values(event).returning();
      return row!;
    },

    async since(from: Date, limit: number, agentId?: string): Promise<ActivityRow[]> {
      const conditions: SQL[] = [gt(agentActivityEvents.createdAt, from)];
      if (agentId) conditions.push(eq(agentActivityEvents.agentId, agentId));
      return db
        .select()
        .from(agentActivityEvents)
        .where(and(...conditions))
        .orderBy(descending(agentActivityEvents.createdAt), descending(agentActivityEvents.id))
        .limit(limit);
    },

    /** Per agent: last activity, latest name given, and the number of events in (from, to]. */
    async statsPerAgent(from: Date, to: Date): Promise<AgentStats[]> {
      const rows = await db
        .select({
          agentId: agentActivityEvents.agentId,
          lastSeenAt: max(agentActivityEvents.createdAt),
          // The most recent non-null name wins: agents may be renamed.
          agentName: sql<string | null>`(array_agg(${agentActivityEvents.agentName} ORDER BY ${agentActivityEvents.createdAt} DESC)
            FILTER (WHERE ${agentActivityEvents.agentName} IS NOT NULL))[1]`,
          actionsSince: sql<number>`count(*) FILTER (WHERE ${agentActivityEvents.createdAt} > ${from.toISOString()}::timestamptz
            AND ${agentActivityEvents.createdAt} <= ${to.toISOString()}::timestamptz)`,
        })
        .from(agentActivityEvents)
        .groupBy(agentActivityEvents.agentId);
      return rows.map((r) => ({
        agentId: r.agentId,
        agentName: r.agentName ?? null,
        lastSeenAt: r.lastSeenAt ? new Date(r.lastSeenAt) : null,
        actionsSince: Number(r.actionsSince),
      }));
    },
  };
}

export type AgentActivityRepository = ReturnType<typeof createAgentActivityRepository>;
