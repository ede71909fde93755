// The only SQL over scheduled_job_runs.
import { and, desc, eq, gte, inArray, ne, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/database.ts';
import type { JobName, RunTrigger } from './jobs.domain.ts';
import { scheduledJobRuns } from './jobs.tables.ts';

export type RunRow = typeof scheduledJobRuns.$inferSelect;

export function createRunsRepository(db: Db) {
  return {
    async start(job: JobName, trigger: RunTrigger, at: Date): Promise<string> {
      const [row] = await db.insert(scheduledJobRuns).values({ job, trigger, startedAt: at, status: 'running' }).returning({ id: scheduledJobRuns.id });
      return row!.id;
    },

    async finish(id: string, outcome: { status: 'succeeded' | 'failed'; result?: Record<string, unknown>; error?: string }, at: Date): Promise<void> {
      await db
        .update(scheduledJobRuns)
        .set({ status: outcome.status, result: outcome.result ?? null, error: outcome.error ?? null, finishedAt: at })
        .where(eq(scheduledJobRuns.id, id));
    },

    async recordSkipped(job: JobName, trigger: RunTrigger, at: Date, reason: string): Promise<string> {
      const [row] = await db
        .insert(scheduledJobRuns)
        .values({ job, trigger, startedAt: at, finishedAt: at, status: 'skipped', result: { reason } })
        .returning({ id: scheduledJobRuns.id });
      return row!.id;
    },

    /** The newest run of each of `jobs` (one index scan per job), optionally ignoring runs in progress. */
    async newestPerJob(jobs: readonly JobName[], finishedOnly: boolean): Promise<RunRow[]> {
      if (jobs.length === 0) return [];
      return db
        .selectDistinctOn([scheduledJobRuns.job])
        .from(scheduledJobRuns)
        .where(and(inArray(scheduledJobRuns.job, [...jobs]), finishedOnly ? ne(scheduledJobRuns.status, 'running') : undefined))
        .orderBy(scheduledJobRuns.job, desc(scheduledJobRuns.startedAt), desc(scheduledJobRuns.id));
    },

    /**
     * What a trigger saw of the job's runs since `since` (skipped ones aside): how many there were
     * and which were in progress. Compared again under the job's lock, it tells whether another
     * run started, or finished, after this trigger arrived (docs/decisions/101).
     */
    async seenSince(job: JobName, since: Date): Promise<RunsSeen> {
      const [row] = await db
        .select({
          count: sql<number>`count(*)::int`,
          running: sql<string[]>`coalesce(array_agg(${scheduledJobRuns.id}::text) filter (where ${scheduledJobRuns.status} = 'running'), '{}'::text[])`,
          newest: sql<string | Date | null>`max(${scheduledJobRuns.startedAt})`,
        })
        .from(scheduledJobRuns)
        .where(and(eq(scheduledJobRuns.job, job), gte(scheduledJobRuns.startedAt, since), ne(scheduledJobRuns.status, 'skipped')));
      return { count: Number(row?.count ?? 0), running: row?.running ?? [], newestStartedAt: row?.newest ? new Date(row.newest) : null };
    },

    async find(id: string): Promise<RunRow | undefined> {
      const [row] = await db.select().from(scheduledJobRuns).where(eq(scheduledJobRuns.id, id)).limit(1);
      return row;
    },
  };
}

export interface RunsSeen {
  count: number;
  running: string[];
  /** When the newest of them started. */
  newestStartedAt: Date | null;
}

export type RunsRepository = ReturnType<typeof createRunsRepository>;
