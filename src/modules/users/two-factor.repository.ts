// Every query on a user's second factor: the sealed TOTP secret and its last accepted time step (on
// the users row), the recovery codes and the sign-ins waiting for their second factor. A method that
// may run inside a caller's transaction takes its executor last.
import { and, asc, count, eq, gt, isNull, lt, lte, or, isNotNull, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { passkeys } from './passkeys.tables.ts';
import { mfaChallenges, twoFactorRecoveryCodes, users } from './users.tables.ts';

export function createTwoFactorRepository(db: DbExecutor) {
  /**
   * Turns TOTP off: the secret, the recovery codes and pending sign-ins go; two-factor stays on while
   * the account has a passkey (decision 204). Answers whether TOTP was on.
   */
  async function disable(userId: string, at: Date, executor: DbExecutor): Promise<boolean> {
    const [before] = await executor
      .select({ on: users.totpEnabled })
      .from(users)
      .where(eq(users.id, userId))
      .for('update');
    await executor
      .update(users)
      .set({
        twoFactorEnabled: sql`EXISTS (SELECT 1 FROM ${passkeys} WHERE ${passkeys.userId} = ${userId})`,
        totpEnabled: false,
        totpSecretSealed: null,
        updatedAt: at,
      })
      .where(eq(users.id, userId));
    await executor.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
    await executor.delete(mfaChallenges).where(eq(mfaChallenges.userId, userId));
    return before?.on === true;
  }

  return {
    /** Stores a new (not yet enabled) secret; refused (false) while TOTP is on. */
    async setPendingSecret(userId: string, sealed: string, at: Date, executor: DbExecutor = db): Promise<boolean> {
      const rows = await executor
        .update(users)
        .set({ totpSecretSealed: sealed, updatedAt: at })
        .where(and(eq(users.id, userId), eq(users.totpEnabled, false)))
        .returning({ id: users.id });
      return rows.length > 0;
    },

    /** Turns two-factor on with the given recovery code hashes, replacing any earlier ones. */
    async enable(userId: string, codeHashes: string[], at: Date, executor: DbExecutor): Promise<boolean> {
      const rows = await executor
        .update(users)
        .set({ twoFactorEnabled: true, totpEnabled: true, updatedAt: at })
        .where(and(eq(users.id, userId), eq(users.totpEnabled, false), isNotNull(users.totpSecretSealed)))
        .returning({ id: users.id });
      if (rows.length === 0) return false;
      await executor.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
      await executor
        .insert(twoFactorRecoveryCodes)
        .values(codeHashes.map((codeHash) => ({ userId, codeHash, createdAt: at })));
      return true;
    },

    disable,

    /** Every second factor goes (an operator's reset): TOTP as `disable` does, and the passkeys. */
    async reset(userId: string, at: Date, executor: DbExecutor): Promise<void> {
      await executor.delete(passkeys).where(eq(passkeys.userId, userId));
      await disable(userId, at, executor);
    },

    /**
     * Spends a TOTP time step: true when `step` is later than the last one accepted for the user,
     * which it becomes. One conditional UPDATE, so two instances accepting the same code race on the
     * row and only one wins (decision 141).
     */
    async spendStep(userId: string, step: number, executor: DbExecutor = db): Promise<boolean> {
      const rows = await executor
        .update(users)
        .set({ totpLastStep: step })
        .where(and(eq(users.id, userId), lt(users.totpLastStep, step)))
        .returning({ id: users.id });
      return rows.length > 0;
    },

    /** Up to `limit` users with a sealed TOTP secret, by id after `after` (the key-rotation job's pages). */
    async sealedPage(after: string | null, limit: number): Promise<{ id: string; sealed: string }[]> {
      const rows = await db
        .select({ id: users.id, sealed: users.totpSecretSealed })
        .from(users)
        .where(and(isNotNull(users.totpSecretSealed), after ? gt(users.id, after) : undefined))
        .orderBy(asc(users.id))
        .limit(limit);
      return rows.map((row) => ({ id: row.id, sealed: row.sealed! }));
    },

    /** Swaps the sealed secret when it is still `from` (a concurrent setup or disable wins). */
    async replaceSealed(userId: string, from: string, to: string, executor: DbExecutor = db): Promise<boolean> {
      const rows = await executor
        .update(users)
        .set({ totpSecretSealed: to })
        .where(and(eq(users.id, userId), eq(users.totpSecretSealed, from)))
        .returning({ id: users.id });
      return rows.length > 0;
    },

    /** Marks the recovery code used when it is the user's and unused; answers whether it was. */
    async spendRecoveryCode(userId: string, codeHash: string, at: Date, executor: DbExecutor = db): Promise<boolean> {
      const rows = await executor
        .update(twoFactorRecoveryCodes)
        .set({ usedAt: at })
        .where(
          and(
            eq(twoFactorRecoveryCodes.userId, userId),
            eq(twoFactorRecoveryCodes.codeHash, codeHash),
            isNull(twoFactorRecoveryCodes.usedAt),
          ),
        )
        .returning({ id: twoFactorRecoveryCodes.id });
      return rows.length > 0;
    },

    async unusedRecoveryCodes(userId: string, executor: DbExecutor = db): Promise<number> {
      const [row] = await executor
        .select({ n: count() })
        .from(twoFactorRecoveryCodes)
        .where(and(eq(twoFactorRecoveryCodes.userId, userId), isNull(twoFactorRecoveryCodes.usedAt)));
      return Number(row?.n ?? 0);
    },

    /**
     * Opens a challenge; the user's earlier ones that can never be accepted again (expired or
     * spent) go, so rows do not pile up.
     */
    async openChallenge(
      challenge: { userId: string; tokenHash: string; createdAt: Date; expiresAt: Date },
      executor: DbExecutor = db,
    ): Promise<void> {
      await executor
        .delete(mfaChallenges)
        .where(
          and(
            eq(mfaChallenges.userId, challenge.userId),
            or(lte(mfaChallenges.expiresAt, challenge.createdAt), isNotNull(mfaChallenges.usedAt)),
          ),
        );
      await executor.insert(mfaChallenges).values(challenge);
    },

    /** The user of a live, unspent challenge. */
    async findChallenge(
      tokenHash: string,
      now: Date,
      executor: DbExecutor = db,
    ): Promise<{ id: string; userId: string } | undefined> {
      const [row] = await executor
        .select({ id: mfaChallenges.id, userId: mfaChallenges.userId })
        .from(mfaChallenges)
        .where(
          and(eq(mfaChallenges.tokenHash, tokenHash), isNull(mfaChallenges.usedAt), gt(mfaChallenges.expiresAt, now)),
        )
        .limit(1);
      return row;
    },

    /** Spends the challenge: true for the one request that does. */
    async spendChallenge(id: string, now: Date, executor: DbExecutor = db): Promise<boolean> {
      const rows = await executor
        .update(mfaChallenges)
        .set({ usedAt: now })
        .where(and(eq(mfaChallenges.id, id), isNull(mfaChallenges.usedAt), gt(mfaChallenges.expiresAt, now)))
        .returning({ id: mfaChallenges.id });
      return rows.length > 0;
    },
  };
}

export type TwoFactorRepository = ReturnType<typeof createTwoFactorRepository>;
