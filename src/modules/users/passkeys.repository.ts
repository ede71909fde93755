// Every query on passkeys and their ceremonies' challenges. The account's `two_factor_enabled`
// follows them: a first passkey turns it on, removing the last second factor turns it off
// (decision 204). A method that may run inside a caller's transaction takes its executor last.
import { and, asc, eq, gt, isNull, lte, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { passkeys, webauthnChallenges, type PasskeyPurpose } from './passkeys.tables.ts';
import { users } from './users.tables.ts';

export type PasskeyRow = typeof passkeys.$inferSelect;
export type NewPasskey = Omit<typeof passkeys.$inferInsert, 'id' | 'lastUsedAt'>;
export type WebauthnChallengeRow = typeof webauthnChallenges.$inferSelect;

export function createPasskeysRepository(db: DbExecutor) {
  return {
    async list(userId: string, executor: DbExecutor = db): Promise<PasskeyRow[]> {
      return executor
        .select()
        .from(passkeys)
        .where(eq(passkeys.userId, userId))
        .orderBy(asc(passkeys.createdAt), asc(passkeys.id));
    },

    async findByCredentialId(credentialId: string, executor: DbExecutor = db): Promise<PasskeyRow | undefined> {
      const [row] = await executor.select().from(passkeys).where(eq(passkeys.credentialId, credentialId)).limit(1);
      return row;
    },

    /** Stores the credential and turns the account's second factor on; undefined when the credential is known. */
    async add(passkey: NewPasskey, executor: DbExecutor): Promise<PasskeyRow | undefined> {
      const [row] = await executor.insert(passkeys).values(passkey).onConflictDoNothing().returning();
      if (!row) return undefined;
      await executor
        .update(users)
        .set({ twoFactorEnabled: true, updatedAt: passkey.createdAt })
        .where(eq(users.id, passkey.userId));
      return row;
    },

    async rename(userId: string, id: string, name: string, executor: DbExecutor = db): Promise<PasskeyRow | undefined> {
      const [row] = await executor
        .update(passkeys)
        .set({ name })
        .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
        .returning();
      return row;
    },

    /**
     * Removes the user's passkey; when it was the last second factor (no other passkey, no TOTP),
     * two-factor goes off. Answers undefined for a passkey that is not the user's, else whether
     * two-factor is still on.
     */
    async remove(
      userId: string,
      id: string,
      at: Date,
      executor: DbExecutor,
    ): Promise<{ stillOn: boolean } | undefined> {
      // The account row first: a concurrent removal of the other passkey waits, and sees this one gone.
      await executor.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
      const removed = await executor
        .delete(passkeys)
        .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
        .returning({ id: passkeys.id });
      if (removed.length === 0) return undefined;
      const [row] = await executor
        .update(users)
        .set({
          twoFactorEnabled: sql`${users.totpEnabled} OR EXISTS (SELECT 1 FROM ${passkeys} WHERE ${passkeys.userId} = ${userId})`,
          updatedAt: at,
        })
        .where(eq(users.id, userId))
        .returning({ on: users.twoFactorEnabled });
      return { stillOn: row?.on === true };
    },

    /**
     * Records a verified assertion. The counter only moves forward: a concurrent assertion that
     * already stored a higher one wins, and this one answers false.
     */
    async recordUse(
      id: string,
      use: { counter: number; backedUp: boolean; at: Date },
      executor: DbExecutor,
    ): Promise<boolean> {
      const rows = await executor
        .update(passkeys)
        .set({ counter: use.counter, backedUp: use.backedUp, lastUsedAt: use.at })
        .where(
          and(
            eq(passkeys.id, id),
            sql`(${passkeys.counter} < ${use.counter} OR (${passkeys.counter} = 0 AND ${use.counter} = 0))`,
          ),
        )
        .returning({ id: passkeys.id });
      return rows.length > 0;
    },

    /** Opens a challenge; challenges that can never be accepted again (expired) go, so rows do not pile up. */
    async openChallenge(
      challenge: {
        tokenHash: string;
        purpose: PasskeyPurpose;
        userId: string | null;
        /** A sign-in that named an e-mail (decision 1100). */
        namedAccount?: boolean;
        sessionId: string | null;
        mfaChallengeId: string | null;
        createdAt: Date;
        expiresAt: Date;
      },
      executor: DbExecutor = db,
    ): Promise<void> {
      await executor.delete(webauthnChallenges).where(lte(webauthnChallenges.expiresAt, challenge.createdAt));
      await executor.insert(webauthnChallenges).values(challenge);
    },

    /** Spends a live challenge: its row for the one request that does, undefined for every other. */
    async spendChallenge(
      tokenHash: string,
      now: Date,
      executor: DbExecutor = db,
    ): Promise<WebauthnChallengeRow | undefined> {
      const [row] = await executor
        .update(webauthnChallenges)
        .set({ usedAt: now })
        .where(
          and(
            eq(webauthnChallenges.tokenHash, tokenHash),
            isNull(webauthnChallenges.usedAt),
            gt(webauthnChallenges.expiresAt, now),
          ),
        )
        .returning();
      return row;
    },
  };
}

export type PasskeysRepository = ReturnType<typeof createPasskeysRepository>;
