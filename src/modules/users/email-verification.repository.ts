// The codes that prove an account's address (decision 845): one live per account, stored as SHA-256.
import { sql } from 'drizzle-orm';
import { rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { emailVerificationTokens, users } from './users.tables.ts';

/** What spending a code found: the address verified, or why not. */
export type VerificationSpent = 'verified' | 'unknown' | 'expired' | 'address_changed';

export function createEmailVerificationRepository(db: DbExecutor) {
  return {
    /** Stores the account's code for `email`, replacing any earlier one (which stops working). */
    async replace(
      code: { userId: string; tokenHash: string; email: string; expiresAt: Date },
      now: Date,
      executor: DbExecutor = db,
    ): Promise<void> {
      await executor
        .insert(emailVerificationTokens)
        .values({ ...code, createdAt: now })
        .onConflictDoUpdate({
          target: emailVerificationTokens.userId,
          set: { tokenHash: code.tokenHash, email: code.email, expiresAt: code.expiresAt, createdAt: now },
        });
    },

    /**
     * Spends the account's code `tokenHash` and, while it is live and the account's address is still the
     * one it was mailed to, marks that address verified: one statement, so of two spending the same code
     * only the one whose DELETE found it goes on. Another account's code is not found, and stays.
     */
    async spend(userId: string, tokenHash: string, now: Date, executor: DbExecutor = db): Promise<VerificationSpent> {
      const t = emailVerificationTokens;
      const [row] = await rowsOf<{ expired: boolean; verified: boolean }>(
        await executor.execute(sql`WITH spent AS (
              DELETE FROM ${t} WHERE ${t.userId} = ${userId} AND ${t.tokenHash} = ${tokenHash}
              RETURNING user_id, email, expires_at
            ), verified AS (
              UPDATE ${users} SET email_verified = true, updated_at = ${now}
              FROM spent
              WHERE ${users.id} = spent.user_id AND ${users.email} = spent.email AND spent.expires_at > ${now}
              RETURNING ${users.id}
            )
            SELECT spent.expires_at <= ${now} AS expired, EXISTS (SELECT 1 FROM verified) AS verified FROM spent`),
      );
      if (!row) return 'unknown';
      if (row.expired) return 'expired';
      return row.verified ? 'verified' : 'address_changed';
    },
  };
}

export type EmailVerificationRepository = ReturnType<typeof createEmailVerificationRepository>;
