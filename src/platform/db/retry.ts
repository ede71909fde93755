// A transaction the database may end to break a deadlock (40P01) or a serialization failure (40001):
// PostgreSQL rolls it back whole and says to run it again, so it runs again, a bounded number of
// times with a short random pause (the two sides then do not meet again in step), instead of
// answering 500 (issue 37). Only a transaction that has no effect outside the database before it
// commits may be run this way; what follows the commit runs once.
import type { Db, DbExecutor } from './database.ts';

const RETRIED_CODES = new Set(['40P01', '40001']);
/** Runs in all; a fourth failure in a row is a bug or an overload, answered as such. */
const ATTEMPTS = 4;
const PAUSE_MS = 20;

/** Whether the error, or one it wraps (drizzle wraps the driver's), is a deadlock or a serialization failure. */
export function isRetriedConflict(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth <= 8; depth++) {
    if (RETRIED_CODES.has(String((current as { code?: unknown }).code))) return true;
    current = current.cause;
  }
  return false;
}

export async function transactionRetrying<T>(
  db: Pick<Db, 'transaction'>,
  work: (tx: DbExecutor) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isRetriedConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * PAUSE_MS * attempt));
    }
  }
}
