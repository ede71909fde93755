// Every query on device sessions, refresh tokens and password-reset links. A method that may run
// inside a caller's transaction takes its executor last.
import { and, eq, gt, inArray, isNotNull, isNull, lt, lte, ne, or, sql } from 'drizzle-orm';
import { rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { executePrepared } from '../../platform/db/prepared.ts';
import { deviceSessionExpiryDays, deviceSessions, passwordResetTokens, refreshTokens, users } from './users.tables.ts';

export function createSessionsRepository(db: DbExecutor) {
  // Built once: it runs for every session every few seconds (the guards' principal cache).
  const principalQuery = db
    .select({
      id: users.id,
      email: users.email,
      role: users.role,
      status: users.status,
      twoFactorEnabled: users.twoFactorEnabled,
      revokedAt: deviceSessions.revokedAt,
      expiresAt: deviceSessions.expiresAt,
      lastSeenAt: deviceSessions.lastSeenAt,
    })
    .from(deviceSessions)
    .innerJoin(users, eq(users.id, deviceSessions.userId))
    .where(and(eq(deviceSessions.id, sql.placeholder('sessionId')), eq(users.id, sql.placeholder('userId'))))
    .limit(1)
    .prepare('session_principal');

  /** Revokes the given live sessions and their refresh tokens; answers the revoked ids. */
  async function revokeWhere(
    where: ReturnType<typeof and>,
    at: Date,
    reason: string,
    executor: DbExecutor,
  ): Promise<{ id: string; userId: string }[]> {
    const revoked = await executor
      .update(deviceSessions)
      .set({ revokedAt: at, revokeReason: reason })
      .where(and(where, isNull(deviceSessions.revokedAt)))
      .returning({ id: deviceSessions.id, userId: deviceSessions.userId });
    if (revoked.length > 0) {
      await executor
        .update(refreshTokens)
        .set({ revokedAt: at })
        .where(
          and(
            inArray(
              refreshTokens.sessionId,
              revoked.map((s) => s.id),
            ),
            isNull(refreshTokens.revokedAt),
          ),
        );
    }
    return revoked;
  }

  return {
    /** The session and its account, as the guards check them. */
    async principal(sessionId: string, userId: string) {
      const [row] = await principalQuery.execute({ sessionId, userId });
      return row;
    },

    /** Several sessions and their accounts at once (the account streams re-check theirs every second). */
    async principals(sessionIds: string[]) {
      if (sessionIds.length === 0) return [];
      return db
        .select({
          sessionId: deviceSessions.id,
          id: users.id,
          role: users.role,
          status: users.status,
          revokedAt: deviceSessions.revokedAt,
          expiresAt: deviceSessions.expiresAt,
        })
        .from(deviceSessions)
        .innerJoin(users, eq(users.id, deviceSessions.userId))
        .where(inArray(deviceSessions.id, sessionIds));
    },

    async open(
      session: {
        userId: string;
        userAgent?: string;
        ip?: string;
        createdAt: Date;
        expiresAt: Date;
        secondFactorAt?: Date;
        secondFactorMethod?: string;
        firstFactor?: string;
      },
      executor: DbExecutor = db,
    ): Promise<string> {
      const [row] = await executor
        .insert(deviceSessions)
        .values({ ...session, lastSeenAt: session.createdAt })
        .returning({ id: deviceSessions.id });
      return row!.id;
    },

    async touch(sessionId: string, at: Date, executor: DbExecutor = db): Promise<void> {
      await executor.update(deviceSessions).set({ lastSeenAt: at }).where(eq(deviceSessions.id, sessionId));
    },

    /** Revokes one session and its refresh tokens. */
    async revoke(sessionId: string, at: Date, reason: string, executor: DbExecutor = db): Promise<void> {
      await revokeWhere(eq(deviceSessions.id, sessionId), at, reason, executor);
    },

    /** Revokes every live session of the user but `keep` (none kept when null); answers how many. */
    async revokeAll(
      userId: string,
      at: Date,
      reason: string,
      executor: DbExecutor = db,
      keep: string | null = null,
    ): Promise<number> {
      const revoked = await revokeWhere(
        and(eq(deviceSessions.userId, userId), keep ? ne(deviceSessions.id, keep) : undefined),
        at,
        reason,
        executor,
      );
      return revoked.length;
    },

    /**
     * Revokes every live session of these users in one statement (the kept counts of sessions then
     * follow in key order, as one user's would); answers how many each user lost.
     */
    async revokeAllOf(
      userIds: string[],
      at: Date,
      reason: string,
      executor: DbExecutor = db,
    ): Promise<Map<string, number>> {
      const ended = new Map<string, number>(userIds.map((id) => [id, 0]));
      if (userIds.length === 0) return ended;
      for (const { userId } of await revokeWhere(inArray(deviceSessions.userId, userIds), at, reason, executor))
        ended.set(userId, (ended.get(userId) ?? 0) + 1);
      return ended;
    },

    async addRefreshToken(
      token: { sessionId: string; tokenHash: string; createdAt: Date; expiresAt: Date },
      executor: DbExecutor = db,
    ): Promise<void> {
      await executor.insert(refreshTokens).values(token);
    },

    /** Locks the token row so two concurrent refreshes with one token cannot both rotate it. */
    async refreshTokenForUpdate(tokenHash: string, executor: DbExecutor) {
      const [row] = await executor
        .select({
          id: refreshTokens.id,
          sessionId: refreshTokens.sessionId,
          expiresAt: refreshTokens.expiresAt,
          rotatedAt: refreshTokens.rotatedAt,
          revokedAt: refreshTokens.revokedAt,
          sessionRevokedAt: deviceSessions.revokedAt,
          sessionExpiresAt: deviceSessions.expiresAt,
          sessionCreatedAt: deviceSessions.createdAt,
          secondFactorAt: deviceSessions.secondFactorAt,
          secondFactorMethod: deviceSessions.secondFactorMethod,
          firstFactor: deviceSessions.firstFactor,
          userId: deviceSessions.userId,
        })
        .from(refreshTokens)
        .innerJoin(deviceSessions, eq(deviceSessions.id, refreshTokens.sessionId))
        .where(eq(refreshTokens.tokenHash, tokenHash))
        .for('update', { of: refreshTokens })
        .limit(1);
      return row;
    },

    /** The session's sign-in, for the claims of its access tokens. */
    async authentication(sessionId: string, executor: DbExecutor = db) {
      const [row] = await executor
        .select({
          createdAt: deviceSessions.createdAt,
          secondFactorAt: deviceSessions.secondFactorAt,
          secondFactorMethod: deviceSessions.secondFactorMethod,
          firstFactor: deviceSessions.firstFactor,
        })
        .from(deviceSessions)
        .where(eq(deviceSessions.id, sessionId))
        .limit(1);
      return row;
    },
    /** The session presented a second factor now (a step-up). */
    async markSecondFactor(sessionId: string, at: Date, method: string, executor: DbExecutor = db): Promise<void> {
      await executor
        .update(deviceSessions)
        .set({ secondFactorAt: at, secondFactorMethod: method })
        .where(eq(deviceSessions.id, sessionId));
    },
    /** Marks every live refresh token of the session spent (rotated): presenting one again is reuse. */
    async spendRefreshTokens(sessionId: string, at: Date, executor: DbExecutor = db): Promise<void> {
      await executor
        .update(refreshTokens)
        .set({ rotatedAt: at })
        .where(
          and(eq(refreshTokens.sessionId, sessionId), isNull(refreshTokens.rotatedAt), isNull(refreshTokens.revokedAt)),
        );
    },
    async markRotated(tokenId: string, at: Date, executor: DbExecutor = db): Promise<void> {
      await executor.update(refreshTokens).set({ rotatedAt: at }).where(eq(refreshTokens.id, tokenId));
    },

    /** Pending reset links stop working once the password changed. */
    async expireResetTokens(userId: string, at: Date, executor: DbExecutor = db): Promise<void> {
      await executor
        .update(passwordResetTokens)
        .set({ usedAt: at })
        .where(and(eq(passwordResetTokens.userId, userId), isNull(passwordResetTokens.usedAt)));
    },

    /**
     * Deletes up to `batch` sessions that are expired, revoked, or not seen since `idleBefore`, in
     * one statement (their refresh tokens go with them, by trigger); answers how many of each, a
     * session counted once, in that order.
     */
    async deleteStale(
      now: Date,
      idleBefore: Date,
      batch: number,
    ): Promise<{ expired: number; revoked: number; idle: number }> {
      // The batch is found by row address (a TID scan, no index lookup per row). A session changed
      // meanwhile has moved to another address and is left alone: it is rechecked by the next run.
      const counted = rowsOf<{ why: 'expired' | 'revoked' | 'idle'; n: number }>(
        await db.execute(sql`
          WITH gone AS (
            DELETE FROM ${deviceSessions}
            WHERE ctid = ANY (ARRAY(
              SELECT ctid FROM ${deviceSessions}
              WHERE expires_at <= ${now} OR revoked_at IS NOT NULL OR last_seen_at < ${idleBefore}
              LIMIT ${batch}
            ))
            RETURNING CASE WHEN expires_at <= ${now} THEN 'expired' WHEN revoked_at IS NOT NULL THEN 'revoked'
              ELSE 'idle' END AS why
          )
          SELECT why, count(*)::int AS n FROM gone GROUP BY why`),
      );
      const of = (why: string) => Number(counted.find((row) => row.why === why)?.n ?? 0);
      return { expired: of('expired'), revoked: of('revoked'), idle: of('idle') };
    },

    /**
     * Refresh tokens that can never be accepted again: expired or revoked. Rotated live ones stay (reuse detection).
     */
    async deleteDeadRefreshTokens(now: Date, batch: number): Promise<number> {
      const doomed = db
        .select({ id: refreshTokens.id })
        .from(refreshTokens)
        .where(or(lte(refreshTokens.expiresAt, now), isNotNull(refreshTokens.revokedAt)))
        .limit(batch);
      const rows = await db
        .delete(refreshTokens)
        .where(sql`${refreshTokens.id} = ANY (ARRAY(${doomed}))`)
        .returning({ id: refreshTokens.id });
      return rows.length;
    },

    /** Password-reset links that were used or have expired. */
    async deleteDeadResetTokens(now: Date, batch: number): Promise<number> {
      const doomed = db
        .select({ id: passwordResetTokens.id })
        .from(passwordResetTokens)
        .where(or(lte(passwordResetTokens.expiresAt, now), isNotNull(passwordResetTokens.usedAt)))
        .limit(batch);
      const rows = await db
        .delete(passwordResetTokens)
        .where(sql`${passwordResetTokens.id} = ANY (ARRAY(${doomed}))`)
        .returning({ id: passwordResetTokens.id });
      return rows.length;
    },

    /**
     * Sessions neither revoked nor expired at `now`: the kept counts of the days of expiry after today
     * (docs/decisions/124), and today's sessions still unexpired, by the expiry index.
     */
    async countActive(now: Date): Promise<number> {
      const today = now.toISOString().slice(0, 10);
      const tomorrow = new Date(Date.parse(today) + 86_400_000);
      const [row] = rowsOf<{ n: number }>(
        await executePrepared(
          db,
          'active_sessions',
          sql`SELECT (
          (SELECT coalesce(sum(${deviceSessionExpiryDays.n}), 0) FROM ${deviceSessionExpiryDays}
            WHERE ${deviceSessionExpiryDays.day} > ${today}::date)
          + (SELECT count(*) FROM ${deviceSessions}
            WHERE ${and(
              isNull(deviceSessions.revokedAt),
              gt(deviceSessions.expiresAt, now),
              lt(deviceSessions.expiresAt, tomorrow),
            )})
        )::int AS n`,
        ),
      );
      return Number(row?.n ?? 0);
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
