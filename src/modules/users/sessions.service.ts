// The use cases of device sessions and refresh tokens: a sign-in starts a session, a refresh token
// is rotated once (presented again, it ends its session), a second factor marks the session, and
// the cleanup jobs delete what can never be accepted again. Run in the caller's transaction,
// executor last, so the caller's audit row commits with the change.
import type { DbExecutor } from '../../platform/db/database.ts';
import type { AccountsRepository, UserRow } from './accounts.repository.ts';
import type { SessionsRepository } from './sessions.repository.ts';
import type { UserStatus } from './users.domain.ts';

/**
 * Rows deleted per statement by the cleanup methods: large enough that a platform's backlog takes a
 * handful of statements (each finding its rows by index, the idle ones by one scan), small enough
 * that none holds its locks for long.
 */
const CLEANUP_BATCH = 10_000;
/** Stale sessions deleted per statement, whatever made them stale. */
const SESSION_BATCH = 25_000;
const DAY_MS = 86_400_000;

async function drain(step: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step();
    total += n;
    if (n < CLEANUP_BATCH) return total;
  }
}

/** How a session authenticated, as its access tokens carry it (`auth_time`, `amr`; decision 143). */
export interface SessionAuthentication {
  createdAt: Date;
  secondFactorAt: Date | null;
  secondFactorMethod: string | null;
  /** `pwd`, or `webauthn` for a passkey sign-in without a password. */
  firstFactor: string;
}

/** What became of a refresh token presented for rotation. */
type Rotation =
  | { kind: 'rotated'; user: UserRow; sessionId: string; authentication: SessionAuthentication }
  /** A rotated token presented again: it leaked, and its session was ended (`refresh_token_reuse`). */
  | { kind: 'reused'; userId: string; sessionId: string }
  | { kind: 'inactive'; status: UserStatus }
  | { kind: 'invalid' };

export function createSessionsService(deps: {
  sessions: SessionsRepository;
  accounts: Pick<AccountsRepository, 'findById' | 'update'>;
}) {
  const { sessions, accounts } = deps;
  return {
    /** The session and account checks of the account streams, for several sessions at once. */
    principals: sessions.principals,
    countActive: sessions.countActive,

    /**
     * A new session for an authenticated user (with a second factor, when `method` is given); the
     * sign-in is the account's last login.
     */
    async start(
      session: {
        userId: string;
        userAgent?: string;
        ip?: string;
        expiresAt: Date;
        method?: string;
        /** `webauthn` for a passkey sign-in without a password; `pwd` by default. */
        firstFactor?: string;
      },
      now: Date,
      tx: DbExecutor,
    ): Promise<string> {
      const { method, ...rest } = session;
      const sessionId = await sessions.open(
        { ...rest, createdAt: now, secondFactorAt: method ? now : undefined, secondFactorMethod: method },
        tx,
      );
      await accounts.update(session.userId, { lastLogin: now }, tx);
      return sessionId;
    },

    async addRefreshToken(
      token: { sessionId: string; tokenHash: string; expiresAt: Date },
      now: Date,
      tx: DbExecutor,
    ): Promise<void> {
      await sessions.addRefreshToken({ ...token, createdAt: now }, tx);
    },

    /**
     * Rotates a refresh token once, under its row lock so two concurrent refreshes cannot both do it.
     * A rotated token presented again ends its session; an expired or revoked one, or one of an
     * ended session, is invalid; an account not active is refused.
     */
    async rotate(tokenHash: string, now: Date, tx: DbExecutor): Promise<Rotation> {
      const token = await sessions.refreshTokenForUpdate(tokenHash, tx);
      if (!token) return { kind: 'invalid' };
      if (token.rotatedAt || token.revokedAt) {
        if (!token.rotatedAt || token.sessionRevokedAt) return { kind: 'invalid' };
        await sessions.revoke(token.sessionId, now, 'refresh_token_reuse', tx);
        return { kind: 'reused', userId: token.userId, sessionId: token.sessionId };
      }
      if (token.expiresAt <= now || token.sessionRevokedAt || token.sessionExpiresAt <= now) return { kind: 'invalid' };
      const user = await accounts.findById(token.userId, tx);
      if (!user) return { kind: 'invalid' };
      if (user.status !== 'active') return { kind: 'inactive', status: user.status };
      await sessions.markRotated(token.id, now, tx);
      await sessions.touch(token.sessionId, now, tx);
      const authentication = {
        createdAt: token.sessionCreatedAt,
        secondFactorAt: token.secondFactorAt,
        secondFactorMethod: token.secondFactorMethod,
        firstFactor: token.firstFactor,
      };
      return { kind: 'rotated', user, sessionId: token.sessionId, authentication };
    },

    /**
     * The session's refresh tokens are spent by a new pair that replaces them (a step-up's, decision
     * 880): the session keeps one chain, and a copy of an earlier token presented later is reuse.
     */
    async spendRefreshTokens(sessionId: string, now: Date, tx: DbExecutor): Promise<void> {
      await sessions.spendRefreshTokens(sessionId, now, tx);
    },

    /** Ends one session and its refresh tokens. */
    async end(sessionId: string, reason: string, now: Date, tx: DbExecutor): Promise<void> {
      await sessions.revoke(sessionId, now, reason, tx);
    },

    /** The session presented a second factor now (a step-up); answers its sign-in as its tokens carry it. */
    async markSecondFactor(
      sessionId: string,
      method: string,
      now: Date,
      tx: DbExecutor,
    ): Promise<SessionAuthentication | undefined> {
      await sessions.markSecondFactor(sessionId, now, method, tx);
      return sessions.authentication(sessionId, tx);
    },

    /**
     * Deletes sessions that are expired, revoked, or not seen for `idleDays` (counted in that order,
     * each session once), with their refresh tokens.
     */
    async deleteStale(now: Date, idleDays: number): Promise<{ expired: number; revoked: number; idle: number }> {
      const idleBefore = new Date(now.getTime() - idleDays * DAY_MS);
      const total = { expired: 0, revoked: 0, idle: 0 };
      for (;;) {
        const batch = await sessions.deleteStale(now, idleBefore, SESSION_BATCH);
        total.expired += batch.expired;
        total.revoked += batch.revoked;
        total.idle += batch.idle;
        if (batch.expired + batch.revoked + batch.idle < SESSION_BATCH) return total;
      }
    },

    /**
     * Deletes refresh tokens that are expired or revoked and reset links that are expired or used. A
     * rotated refresh token that has not expired is kept: presenting it again is how `rotate` detects
     * a leaked token (docs/decisions/001).
     */
    async deleteDeadTokens(now: Date): Promise<{ refreshTokens: number; passwordResetTokens: number }> {
      const refresh = await drain(() => sessions.deleteDeadRefreshTokens(now, CLEANUP_BATCH));
      const resets = await drain(() => sessions.deleteDeadResetTokens(now, CLEANUP_BATCH));
      return { refreshTokens: refresh, passwordResetTokens: resets };
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
