// One run of a job at a time, across every instance sharing the database (docs/decisions/070).
//
// PostgreSQL: `pg_try_advisory_xact_lock(namespace, hashtext(job))` taken inside a transaction that
// stays open for the whole run, on a pooled connection of its own; the job's queries use other
// connections. The lock ends with the transaction, and with the connection if the process dies, so
// a crashed run never leaves a job locked. The (int, int) key space is separate from the single
// bigint key the migrations lock on.
//
// PGlite is one connection in one process: holding a transaction open there would block the job's
// own queries, and no other instance can share the database anyway, so an in-process lock is enough.
// The in-process lock is also taken first on PostgreSQL, which spares a connection for the common case.
import { sql } from 'drizzle-orm';
import { ADVISORY_LOCK_NAMESPACE } from '../../platform/db/advisory-locks.ts';
import type { Database } from '../../platform/db/database.ts';

/** Namespace of the jobs' advisory locks (first key of the two-int form). */
export const JOB_LOCK_NAMESPACE = ADVISORY_LOCK_NAMESPACE.jobs;

export type LockResult<T> = { acquired: true; value: T } | { acquired: false };

export interface JobLock {
  /** Runs `fn` holding the job's lock; does not run it (acquired false) when another run holds it. */
  tryWithLock<T>(job: string, fn: () => Promise<T>): Promise<LockResult<T>>;
}

export function createJobLock(database: Pick<Database, 'db' | 'kind'>): JobLock {
  const local = new Set<string>();
  return {
    async tryWithLock(job, fn) {
      if (local.has(job)) return { acquired: false };
      local.add(job);
      try {
        if (database.kind === 'pglite') return { acquired: true, value: await fn() };
        return await database.db.transaction(async (tx) => {
          const result = (await tx.execute(
            sql`SELECT pg_try_advisory_xact_lock(${JOB_LOCK_NAMESPACE}::int, hashtext(${job})) AS locked`,
          )) as unknown as { rows: { locked: boolean }[] };
          if (result.rows[0]?.locked !== true) return { acquired: false } as const;
          return { acquired: true, value: await fn() } as const;
        });
      } finally {
        local.delete(job);
      }
    },
  };
}
