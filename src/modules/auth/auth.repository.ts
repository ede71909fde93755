import { and, eq, gt, inArray, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { deviceSessions, passwordResetTokens, refreshTokens, users } from '../../platform/db/schema.ts';

export type UserRow = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;

export function createAuthRepository(db: DbExecutor) {
  return {
    async findUserByEmail(email: string, executor: DbExecutor = db): Promise<UserRow | undefined> {
      const [row] = await executor.select().from(users).where(eq(users.email, email)).limit(1);
      return row;
    },

    async findUserById(id: string, executor: DbExecutor = db): Promise<UserRow | undefined> {
      const [row] = await executor.select().from(users).where(eq(users.id, id)).limit(1);
      return row;
    },

    /** Undefined when the e-mail is taken. */
    async insertUser(user: NewUser, executor: DbExecutor = db): Promise<UserRow | undefined> {
      const [row] = await executor.insert(users).values(user).onConflictDoNothing().returning();
      return row;
    },

    async recordLogin(userId: string, at: Date, executor: DbExecutor): Promise<void> {
      await executor.update(users).set({ lastLogin: at }).where(eq(users.id, userId));
    },

    async insertSession(
      session: { userId: string; userAgent?: string; ip?: string; createdAt: Date; expiresAt: Date },
      executor: DbExecutor,
    ): Promise<string> {
      const [row] = await executor
        .insert(deviceSessions)
        .values({ ...session, lastSeenAt: session.createdAt })
        .returning({ id: deviceSessions.id });
      return row!.id;
    },

    async insertRefreshToken(
      token: { sessionId: string; tokenHash: string; createdAt: Date; expiresAt: Date },
      executor: DbExecutor,
    ): Promise<void> {
      await executor.insert(refreshTokens).values(token);
    },

    /** Locks the token row so two concurrent refreshes with one token cannot both rotate it. */
    async findRefreshTokenForUpdate(tokenHash: string, executor: DbExecutor) {
      const [row] = await executor
        .select({
          id: refreshTokens.id,
          sessionId: refreshTokens.sessionId,
          expiresAt: refreshTokens.expiresAt,
          rotatedAt: refreshTokens.rotatedAt,
          revokedAt: refreshTokens.revokedAt,
          sessionRevokedAt: deviceSessions.revokedAt,
          sessionExpiresAt: deviceSessions.expiresAt,
          userId: deviceSessions.userId,
        })
        .from(refreshTokens)
        .innerJoin(deviceSessions, eq(deviceSessions.id, refreshTokens.sessionId))
        .where(eq(refreshTokens.tokenHash, tokenHash))
        .for('update', { of: refreshTokens })
        .limit(1);
      return row;
    },

    async markRotated(tokenId: string, at: Date, executor: DbExecutor): Promise<void> {
      await executor.update(refreshTokens).set({ rotatedAt: at }).where(eq(refreshTokens.id, tokenId));
    },

    async touchSession(sessionId: string, at: Date, executor: DbExecutor): Promise<void> {
      await executor.update(deviceSessions).set({ lastSeenAt: at }).where(eq(deviceSessions.id, sessionId));
    },

    async revokeSession(sessionId: string, at: Date, reason: string, executor: DbExecutor = db): Promise<void> {
      await executor
        .update(deviceSessions)
        .set({ revokedAt: at, revokeReason: reason })
        .where(and(eq(deviceSessions.id, sessionId), isNull(deviceSessions.revokedAt)));
      await executor
        .update(refreshTokens)
        .set({ revokedAt: at })
        .where(and(eq(refreshTokens.sessionId, sessionId), isNull(refreshTokens.revokedAt)));
    },

    /**
     * Deletes up to `batch` sessions that are expired, revoked, or not seen since `idleBefore`
     * (their refresh tokens go with them, by cascade); answers how many.
     */
    async deleteStaleSessions(why: 'expired' | 'revoked' | 'idle', now: Date, idleBefore: Date, batch: number): Promise<number> {
      const where = {
        expired: lte(deviceSessions.expiresAt, now),
        revoked: isNotNull(deviceSessions.revokedAt),
        idle: lt(deviceSessions.lastSeenAt, idleBefore),
      }[why];
      const doomed = db.select({ id: deviceSessions.id }).from(deviceSessions).where(where).limit(batch);
      const rows = await db.delete(deviceSessions).where(inArray(deviceSessions.id, doomed)).returning({ id: deviceSessions.id });
      return rows.length;
    },

    /** Refresh tokens that can never be accepted again: expired or revoked. Rotated live ones stay (reuse detection). */
    async deleteDeadRefreshTokens(now: Date, batch: number): Promise<number> {
      const doomed = db
        .select({ id: refreshTokens.id })
        .from(refreshTokens)
        .where(or(lte(refreshTokens.expiresAt, now), isNotNull(refreshTokens.revokedAt)))
        .limit(batch);
      const rows = await db.delete(refreshTokens).where(inArray(refreshTokens.id, doomed)).returning({ id: refreshTokens.id });
      return rows.length;
    },

    /** Password-reset tokens that were used or have expired. */
    async deleteDeadResetTokens(now: Date, batch: number): Promise<number> {
      const doomed = db
        .select({ id: passwordResetTokens.id })
        .from(passwordResetTokens)
        .where(or(lte(passwordResetTokens.expiresAt, now), isNotNull(passwordResetTokens.usedAt)))
        .limit(batch);
      const rows = await db.delete(passwordResetTokens).where(inArray(passwordResetTokens.id, doomed)).returning({ id: passwordResetTokens.id });
      return rows.length;
    },

    /** Sessions neither revoked nor expired at `now`. */
    async countActiveSessions(now: Date): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(deviceSessions)
        .where(and(isNull(deviceSessions.revokedAt), gt(deviceSessions.expiresAt, now)));
      return Number(row?.n ?? 0);
    },

    async countUsers(): Promise<number> {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(users);
      return Number(row?.n ?? 0);
    },
  };
}

export type AuthRepository = ReturnType<typeof createAuthRepository>;
