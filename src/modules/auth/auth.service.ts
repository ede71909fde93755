import type { Logger } from 'pino';
import { audit } from '../../platform/audit.ts';
import { hashToken, newOpaqueToken, type TokenService } from '../../platform/auth/tokens.ts';
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../platform/crypto/passwords.ts';
import type { Db, DbExecutor } from '../../platform/db/database.ts';
import { AppError, conflict, forbidden, notFound, rateLimited } from '../../platform/http/errors.ts';
import { clientKey } from '../../platform/http/client-address.ts';
import { iso } from '../../platform/http/schemas.ts';
import type { Role, UsersModule, UserRow } from '../users/index.ts';
import type { Account, RegisterBody, TokenPair } from './auth.schemas.ts';

/** What an account is created from: these fields and nothing else. */
export interface NewAccount {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
}

export interface ClientInfo {
  ip?: string;
  userAgent?: string;
}

export interface AuthSettings {
  allowSignup: boolean;
  /** Sign-up attempts per client address and hour. */
  signupLimitPerHour: number;
  refreshTokenTtlDays: number;
  /** A session not seen for longer than this is deleted by the cleanup job. */
  sessionIdleDays: number;
}

/** Rows deleted per statement by the cleanup methods, so one run never holds a huge lock. */
const CLEANUP_BATCH = 1000;
const DAY_MS = 86_400_000;

async function drain(step: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step();
    total += n;
    if (n < CLEANUP_BATCH) return total;
  }
}

/**
 * Login attempts allowed per fixed window before answering 429 (decision 003): per account from one
 * client address, per client address over all accounts, and per account from everywhere, the last
 * much higher so that failures from elsewhere do not lock the owner out.
 */
export const LOGIN_LIMITS = { perAccountAndClient: 5, perClient: 20, perAccount: 100, windowMs: 15 * 60 * 1000 };
const SIGNUP_WINDOW_MS = 60 * 60 * 1000;

export function toAccount(user: UserRow): Account {
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    role: user.role,
    subscriptionTier: user.subscriptionTier,
    status: user.status,
    emailVerified: user.emailVerified,
    twoFactorEnabled: user.twoFactorEnabled,
    createdAt: iso(user.createdAt)!,
    lastLogin: iso(user.lastLogin),
  };
}

const invalidCredentials = () =>
  new AppError('unauthenticated', 'Incorrect email or password', { headers: { 'www-authenticate': 'Bearer' } });
const invalidRefresh = () =>
  new AppError('unauthenticated', 'Invalid or expired refresh token', { headers: { 'www-authenticate': 'Bearer' } });

export function createAuthService(deps: {
  db: Db;
  users: Pick<UsersModule, 'accounts' | 'sessions'>;
  tokens: TokenService;
  cache: Pick<Cache, 'incr' | 'decr' | 'del'>;
  clock: Clock;
  logger: Logger;
  settings: AuthSettings;
  onUserChanged: (userId: string) => void;
  onAllUsersChanged?: () => void;
}) {
  const { db, tokens, cache, clock, settings } = deps;
  const { accounts, sessions } = deps.users;

  async function issuePair(user: UserRow, sessionId: string, executor: DbExecutor): Promise<TokenPair> {
    const now = clock.now();
    const refresh = newOpaqueToken();
    await sessions.addRefreshToken(
      {
        sessionId,
        tokenHash: hashToken(refresh),
        createdAt: now,
        expiresAt: new Date(now.getTime() + settings.refreshTokenTtlDays * 86_400_000),
      },
      executor,
    );
    const access = await tokens.issueAccess({ sub: user.id, role: user.role, sid: sessionId });
    return { access_token: access.token, token_type: 'bearer', expires_in: access.expiresIn, refresh_token: refresh };
  }

  const throttleKeys = (email: string, ip: string | undefined) => {
    const client = clientKey(ip) ?? 'unknown';
    return { client: `login:client:${client}`, pair: `login:pair:${email}:${client}`, account: `login:account:${email}` };
  };
  const refuseLogin = (resetMs: number) => rateLimited(resetMs / 1000, 'Too many login attempts; try again later');

  /**
   * Counts the attempt before the password is checked, so that parallel guesses cannot all slip
   * under a limit; a successful login gives it back (docs/decisions/003). The address is counted
   * first and a refused attempt adds to no later counter: an address over its limit cannot create
   * counters for made-up e-mails, and one over an account's limit does not spend the account-wide one.
   */
  async function reserveAttempt(email: string, ip: string | undefined): Promise<void> {
    const keys = throttleKeys(email, ip);
    const limits: [string, number][] = [
      [keys.client, LOGIN_LIMITS.perClient],
      [keys.pair, LOGIN_LIMITS.perAccountAndClient],
      [keys.account, LOGIN_LIMITS.perAccount],
    ];
    for (const [key, limit] of limits) {
      const attempt = await cache.incr(key, LOGIN_LIMITS.windowMs);
      if (attempt.count > limit) throw refuseLogin(attempt.resetMs);
    }
  }

  async function giveBackAttempt(email: string, ip: string | undefined): Promise<void> {
    const keys = throttleKeys(email, ip);
    await Promise.all([cache.decr(keys.client), cache.decr(keys.pair), cache.decr(keys.account)]);
  }

  /** The owner got in from this address: their own failures there are forgiven. */
  async function releaseAttempt(email: string, ip: string | undefined): Promise<void> {
    const keys = throttleKeys(email, ip);
    await Promise.all([cache.decr(keys.client), cache.del(keys.pair), cache.decr(keys.account)]);
  }

  async function reserveSignup(ip: string | undefined): Promise<void> {
    const attempt = await cache.incr(`signup:client:${clientKey(ip) ?? 'unknown'}`, SIGNUP_WINDOW_MS);
    if (attempt.count > settings.signupLimitPerHour) throw rateLimited(attempt.resetMs / 1000, 'Too many sign-ups from this address; try again later');
  }

  return {
    /**
     * Creates an account from its named fields only; the role is the caller's to choose, never the
     * request's. Used by sign-up (always `user`), the bootstrap admin and the CLI. A taken address
     * is refused before the password is hashed.
     */
    async createUser(input: NewAccount, options: { role: Role; actor: 'user' | 'system' }): Promise<UserRow> {
      const email = input.email.trim().toLowerCase();
      if (await accounts.findByEmail(email)) throw conflict('A user with this email already exists');
      const passwordHash = await hashPassword(input.password);
      const now = clock.now();
      return db.transaction(async (tx) => {
        const user = await accounts.insert(
          { email, passwordHash, firstName: input.firstName ?? '', lastName: input.lastName ?? '', role: options.role, createdAt: now, updatedAt: now },
          tx,
        );
        if (!user) throw conflict('A user with this email already exists');
        const actorId = options.actor === 'user' ? user.id : null;
        await audit(tx, { actorId, actorType: options.actor, action: 'auth.register', subjectUserId: user.id, targetType: 'user', targetId: user.id, details: { role: user.role } }, now);
        return user;
      });
    },

    /**
     * The configured first admin (ADMIN_EMAIL, ADMIN_PASSWORD): created when absent. An account that
     * already has the address is made an admin only when ADMIN_PASSWORD is its password, so that
     * whoever registered the address first on an open sign-up does not become admin by it.
     */
    async bootstrapAdmin(email: string, password: string): Promise<'created' | 'admin' | 'promoted' | 'not_promoted'> {
      const existing = await accounts.findByEmail(email);
      if (!existing) {
        try {
          await this.createUser({ email, password }, { role: 'admin', actor: 'system' });
          return 'created';
        } catch (error) {
          // Another instance starting at the same moment created it first: that is the goal reached.
          if (error instanceof AppError && error.code === 'conflict') return 'admin';
          throw error;
        }
      }
      if (existing.role === 'admin') return 'admin';
      if (existing.status !== 'active' || !(await verifyPassword(password, existing.passwordHash))) return 'not_promoted';
      const now = clock.now();
      await db.transaction(async (tx) => {
        await accounts.update(existing.id, { role: 'admin', updatedAt: now }, tx);
        await audit(tx, { actorType: 'system', action: 'auth.admin_bootstrap', subjectUserId: existing.id, targetType: 'user', targetId: existing.id, details: { role: { from: existing.role, to: 'admin' } } }, now);
      });
      deps.onUserChanged(existing.id);
      return 'promoted';
    },

    async register(input: RegisterBody, client: ClientInfo): Promise<Account> {
      if (!settings.allowSignup) throw forbidden('Sign-up is disabled');
      await reserveSignup(client.ip);
      const { email, password, firstName, lastName } = input;
      return toAccount(await this.createUser({ email, password, firstName, lastName }, { role: 'user', actor: 'user' }));
    },

    async login(email: string, password: string, client: ClientInfo): Promise<TokenPair> {
      const normalized = email.trim().toLowerCase();
      await reserveAttempt(normalized, client.ip);
      let user: Awaited<ReturnType<typeof accounts.findByEmail>>;
      try {
        user = await accounts.findByEmail(normalized);
      } catch (error) {
        // The password was never checked (the database is down): the attempt is given back, so an
        // outage does not lock the account out once it is over (docs/decisions/102).
        await giveBackAttempt(normalized, client.ip).catch(() => {});
        throw error;
      }
      // Hash even when the account does not exist, so timing does not reveal which addresses do.
      const valid = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
      if (!user || !valid) {
        if (user) await audit(db, { actorId: user.id, actorType: 'user', action: 'auth.login_failed', subjectUserId: user.id, ip: client.ip }, clock.now());
        throw invalidCredentials();
      }
      await releaseAttempt(normalized, client.ip);
      if (user.status !== 'active') throw forbidden(`User account is ${user.status}`);
      const now = clock.now();
      return db.transaction(async (tx) => {
        const sessionId = await sessions.open(
          {
            userId: user.id,
            userAgent: client.userAgent?.slice(0, 512),
            ip: client.ip,
            createdAt: now,
            expiresAt: new Date(now.getTime() + settings.refreshTokenTtlDays * 86_400_000),
          },
          tx,
        );
        await accounts.update(user.id, { lastLogin: now }, tx);
        await audit(tx, { actorId: user.id, actorType: 'user', action: 'auth.login', subjectUserId: user.id, targetType: 'session', targetId: sessionId, ip: client.ip, details: { userAgent: client.userAgent?.slice(0, 200) } }, now);
        return issuePair(user, sessionId, tx);
      });
    },

    async refresh(refreshToken: string): Promise<TokenPair> {
      const now = clock.now();
      const outcome = await db.transaction(async (tx) => {
        const token = await sessions.refreshTokenForUpdate(hashToken(refreshToken), tx);
        if (!token) return { error: invalidRefresh() };
        if (token.rotatedAt || token.revokedAt) {
          // A rotated token presented again means it leaked: end the whole session.
          if (token.rotatedAt && !token.sessionRevokedAt) {
            await sessions.revoke(token.sessionId, now, 'refresh_token_reuse', tx);
            await audit(tx, { actorType: 'system', action: 'auth.refresh_reuse_detected', subjectUserId: token.userId, targetType: 'session', targetId: token.sessionId }, now);
            return { error: invalidRefresh(), revokedUser: token.userId };
          }
          return { error: invalidRefresh() };
        }
        if (token.expiresAt <= now || token.sessionRevokedAt || token.sessionExpiresAt <= now) return { error: invalidRefresh() };
        const owner = await accounts.findById(token.userId, tx);
        if (!owner) return { error: invalidRefresh() };
        if (owner.status !== 'active') return { error: forbidden(`User account is ${owner.status}`) };
        await sessions.markRotated(token.id, now, tx);
        await sessions.touch(token.sessionId, now, tx);
        return { pair: await issuePair(owner, token.sessionId, tx) };
      });
      if (outcome.revokedUser) deps.onUserChanged(outcome.revokedUser);
      if (outcome.error) throw outcome.error;
      return outcome.pair!;
    },

    /** A null session is an identity provider's: the provider ends it, we only record the logout. */
    async logout(userId: string, sessionId: string | null, client: ClientInfo): Promise<void> {
      const now = clock.now();
      await db.transaction(async (tx) => {
        if (sessionId) await sessions.revoke(sessionId, now, 'logout', tx);
        await audit(tx, { actorId: userId, actorType: 'user', action: 'auth.logout', subjectUserId: userId, targetType: 'session', targetId: sessionId ?? undefined, ip: client.ip }, now);
      });
      deps.onUserChanged(userId);
    },

    /**
     * For the cleanup-device-sessions job: deletes sessions that are expired, revoked, or idle longer
     * than `sessionIdleDays` (counted in that order, each session once), with their refresh tokens.
     */
    async deleteStaleSessions(now: Date): Promise<{ expired: number; revoked: number; idle: number; deleted: number }> {
      const idleBefore = new Date(now.getTime() - settings.sessionIdleDays * DAY_MS);
      const expired = await drain(() => sessions.deleteStale('expired', now, idleBefore, CLEANUP_BATCH));
      const revoked = await drain(() => sessions.deleteStale('revoked', now, idleBefore, CLEANUP_BATCH));
      const idle = await drain(() => sessions.deleteStale('idle', now, idleBefore, CLEANUP_BATCH));
      // A deleted session fails the bearer guard as a revoked one does; drop cached principals now.
      if (expired + revoked + idle > 0) deps.onAllUsersChanged?.();
      return { expired, revoked, idle, deleted: expired + revoked + idle };
    },

    /**
     * For the cleanup-expired-tokens job: deletes refresh tokens that are expired or revoked and
     * password-reset tokens that are expired or used. A rotated refresh token that has not expired is
     * kept: presenting it again is how `refresh` detects a leaked token (docs/decisions/001).
     */
    async deleteDeadTokens(now: Date): Promise<{ refresh_tokens: number; password_reset_tokens: number }> {
      const refresh = await drain(() => sessions.deleteDeadRefreshTokens(now, CLEANUP_BATCH));
      const resets = await drain(() => sessions.deleteDeadResetTokens(now, CLEANUP_BATCH));
      return { refresh_tokens: refresh, password_reset_tokens: resets };
    },

    async me(userId: string): Promise<Account> {
      const user = await accounts.findById(userId);
      if (!user) throw notFound('User not found');
      return toAccount(user);
    },

    /** Device sessions neither revoked nor expired now; for the dashboard. */
    async countActiveSessions(): Promise<number> {
      return sessions.countActive(clock.now());
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
