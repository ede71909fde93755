import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { deviceSessions, refreshTokens, users } from '../../platform/db/schema.ts';

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
