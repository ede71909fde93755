import { and, eq, gt, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { agentActivityEvents } from './command-center.tables.ts';
import { descending } from '../../platform/db/order.ts';
import { executePrepared } from '../../platform/db/prepared.ts';

export type ActivityRow = typeof agentActivityEvents.$inferSelect;
type NewActivity = typeof agentActivityEvents.$inferInsert;

interface AgentStats {
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

    /**
     * The events after `from`, newest first, as the JSON text of the wire's event array, written by
     * the database (decision 184): a page is its rows' kept texts joined (decision 188), with no row
     * formatted again, here or in the database; a row written with triggers off is formatted here.
     */
    async sinceAsJson(from: Date, limit: number, agentId?: string): Promise<string> {
      const conditions: SQL[] = [gt(agentActivityEvents.createdAt, from)];
      if (agentId) conditions.push(eq(agentActivityEvents.agentId, agentId));
      const page = db
        .select()
        .from(agentActivityEvents)
        .where(and(...conditions))
        .orderBy(descending(agentActivityEvents.createdAt), descending(agentActivityEvents.id))
        .limit(limit)
        .as('page');
      const [row] = rowsOf<{ events: string }>(
        await executePrepared(
          db,
          'agent_activity_page',
          sql`
          SELECT coalesce(
              '[' || string_agg(
                coalesce(${page.wire}, agent_activity_wire(${page.id}, ${page.agentId}, ${page.agentName},
                  ${page.kind}, ${page.rationale}, ${page.action}, ${page.createdAt})),
                ',' ORDER BY ${page.createdAt} DESC, ${page.id} DESC
              ) || ']',
              '[]'
            ) AS events
          FROM ${page}`,
        ),
      );
      return row!.events;
    },

    /**
     * Per agent: last activity, latest name given, and the number of events in (from, to]. The agents
     * are found by skipping through the (agent, time) index one agent at a time, and each figure is a
     * short walk of the same index: the cost follows the agents, not their events.
     */
    async statsPerAgent(from: Date, to: Date): Promise<AgentStats[]> {
      const rows = rowsOf<{
        agentId: string;
        lastSeenAt: Date | string | null;
        agentName: string | null;
        actionsSince: number;
      }>(
        await db.execute(sql`
          WITH RECURSIVE agents AS (
            (SELECT agent_id FROM ${agentActivityEvents} ORDER BY agent_id LIMIT 1)
            UNION ALL
            SELECT (SELECT e.agent_id FROM ${agentActivityEvents} e WHERE e.agent_id > a.agent_id
              ORDER BY e.agent_id LIMIT 1)
            FROM agents a WHERE a.agent_id IS NOT NULL
          )
          SELECT a.agent_id AS "agentId",
            (SELECT e.created_at FROM ${agentActivityEvents} e WHERE e.agent_id = a.agent_id
              ORDER BY e.created_at DESC NULLS LAST LIMIT 1) AS "lastSeenAt",
            -- The most recent non-null name wins: agents may be renamed.
            (SELECT e.agent_name FROM ${agentActivityEvents} e
              WHERE e.agent_id = a.agent_id AND e.agent_name IS NOT NULL
              ORDER BY e.created_at DESC NULLS LAST LIMIT 1) AS "agentName",
            (SELECT count(*) FROM ${agentActivityEvents} e WHERE e.agent_id = a.agent_id
              AND e.created_at > ${from.toISOString()}::timestamptz
              AND e.created_at <= ${to.toISOString()}::timestamptz)::int AS "actionsSince"
          FROM agents a WHERE a.agent_id IS NOT NULL`),
      );
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
