// The codes that link a Telegram chat to its user (decision 860), and the lock that keeps one reader of the
// bot's updates in a deployment.
import { eq, sql } from 'drizzle-orm';
import { ADVISORY_LOCK } from '../../platform/db/advisory-locks.ts';
import type { Database, DbExecutor } from '../../platform/db/database.ts';
import { telegramLinkCodes } from './notifications.tables.ts';

export function createTelegramLinkRepository(database: Pick<Database, 'db' | 'kind'>) {
  const { db } = database;
  return {
    /** The user's one live code, replacing any earlier one. */
    async saveCode(userId: string, codeHash: string, expiresAt: Date): Promise<void> {
      await db
        .insert(telegramLinkCodes)
        .values({ userId, codeHash, expiresAt })
        .onConflictDoUpdate({ target: telegramLinkCodes.userId, set: { codeHash, expiresAt } });
    },

    /** Takes the code out, whether or not it is still valid: a code is read once. */
    async takeCode(
      codeHash: string,
      executor: DbExecutor = db,
    ): Promise<{ userId: string; expiresAt: Date } | undefined> {
      const [row] = await executor
        .delete(telegramLinkCodes)
        .where(eq(telegramLinkCodes.codeHash, codeHash))
        .returning({ userId: telegramLinkCodes.userId, expiresAt: telegramLinkCodes.expiresAt });
      return row;
    },

    /**
     * Runs `work` holding the deployment's updates lock, or answers false at once when another instance
     * holds it. PostgreSQL: a transaction-scoped advisory lock on a pooled connection of its own, held
     * while `work` runs; it ends with the transaction, or with the connection if the process dies or the
     * connection is lost. `work` is handed `stillHeld`, which asks that very session (one statement, within
     * the query bound) and throws once it is gone: the lock may then be another instance's (decision 922).
     * PGlite serves one process, which runs one reader.
     */
    async whileHolding(work: (stillHeld: () => Promise<void>) => Promise<void>): Promise<boolean> {
      if (database.kind === 'pglite') {
        await work(async () => {});
        return true;
      }
      return db.transaction(async (tx) => {
        const result = (await tx.execute(
          sql`SELECT pg_try_advisory_xact_lock(${ADVISORY_LOCK.telegramUpdates}::bigint) AS locked`,
        )) as unknown as { rows: { locked: boolean }[] };
        if (result.rows[0]?.locked !== true) return false;
        await work(async () => {
          await tx.execute(sql`SELECT 1`);
        });
        return true;
      });
    },
  };
}

export type TelegramLinkRepository = ReturnType<typeof createTelegramLinkRepository>;
