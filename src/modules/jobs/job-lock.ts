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
//
// The sweep of lost runs (decision 1000) takes the locks of many jobs in one statement: on PostgreSQL
// the statement itself tries each job's advisory lock (the same key), held until it commits.
import { type SQL, sql } from 'drizzle-orm';
import { ADVISORY_LOCK_NAMESPACE } from '../../platform/db/advisory-locks.ts';
import type { Database } from '../../platform/db/database.ts';

/** Namespace of the jobs' advisory locks (first key of the two-int form). */
export const JOB_LOCK_NAMESPACE = ADVISORY_LOCK_NAMESPACE.jobs;

export type LockResult<T> = { acquired: true; value: T } | { acquired: false };

/** A condition over a job's name in SQL: true when that job's lock is free and now held by the statement. */
export type LockTaken = (job: SQL) => SQL;

export interface JobLock {
  /** Runs `fn` holding the job's lock; does not run it (acquired false) when another run holds it. */
  tryWithLock<T>(job: string, fn: () => Promise<T>): Promise<LockResult<T>>;
  /**
   * Runs `statement` once (outside a transaction), with the condition under which it holds a job's lock.
   * PostgreSQL: the statement takes each lock itself, only where the condition is evaluated, and holds it
   * until it commits; a job held in this process is never tried. Embedded: the jobs `candidates` names
   * that this process does not hold are held in process around the statement, and the condition names them.
   */
  withFreeLocks<T>(
    candidates: () => Promise<readonly string[]>,
    statement: (taken: LockTaken) => Promise<T>,
  ): Promise<T>;
}

/** `job`'s advisory lock, tried for the current transaction (a statement's own when outside one). */
const tryXactLock = (job: SQL) => sql`pg_try_advisory_xact_lock(${JOB_LOCK_NAMESPACE}::int, hashtext(${job}))`;

/** `job IN (names)`, false for none. */
const among = (job: SQL, names: readonly string[]) =>
  names.length === 0
    ? sql`false`
    : sql`${job} IN (${sql.join(
        names.map((name) => sql`${name}`),
        sql`, `,
      )})`;

export function createJobLock(database: Pick<Database, 'db' | 'kind'>): JobLock {
  const local = new Set<string>();
  return {
    async tryWithLock(job, fn) {
      if (local.has(job)) return { acquired: false };
      local.add(job);
      try {
        if (database.kind === 'pglite') return { acquired: true, value: await fn() };
        return await database.db.transaction(async (tx) => {
          const result = (await tx.execute(sql`SELECT ${tryXactLock(sql`${job}`)} AS locked`)) as unknown as {
            rows: { locked: boolean }[];
          };
          if (result.rows[0]?.locked !== true) return { acquired: false } as const;
          return { acquired: true, value: await fn() } as const;
        });
      } finally {
        local.delete(job);
      }
    },

    async withFreeLocks(candidates, statement) {
      if (database.kind === 'postgres') {
        // CASE, not AND: PostgreSQL may evaluate AND's operands in any order, and a lock tried is taken.
        const mine = [...local];
        return statement((job) =>
          mine.length === 0
            ? tryXactLock(job)
            : sql`CASE WHEN ${among(job, mine)} THEN false ELSE ${tryXactLock(job)} END`,
        );
      }
      const held = [...new Set(await candidates())].filter((job) => !local.has(job));
      for (const job of held) local.add(job);
      try {
        return await statement((job) => among(job, held));
      } finally {
        for (const job of held) local.delete(job);
      }
    },
  };
}
