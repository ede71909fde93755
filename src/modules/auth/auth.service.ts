import type { Logger } from 'pino';
import { audit } from './auth.audit.ts';
import { hashToken, newOpaqueToken, type TokenService } from '../../platform/auth/tokens.ts';
import type { Cache } from '../../platform/cache/cache.ts';
import type { GuardCounters } from '../../platform/cache/guard-counters.ts';
import type { Clock } from '../../platform/clock.ts';
import type { PasswordHasher } from '../../platform/crypto/passwords.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError, conflict, forbidden, notFound } from '../../platform/http/errors.ts';
import type { Role, UsersModule, UserRow } from '../users/index.ts';
import type { RegisterBody, TwoFactorCodeBody, TwoFactorVerifyBody } from './auth.schemas.ts';
import { invalidCredentials, invalidMfaToken, invalidRefresh, wrongSecondFactor } from './auth.answers.ts';
import type { DeviceCookies } from './device-cookie.ts';
import { createLoginThrottle, type LoginClient } from './login-throttle.ts';
import { createSessionIssuer, type ClientInfo, type IssuedTokens } from './session-issuer.ts';
import { oneAnswer, type SecondFactor } from './second-factor.ts';
import type { SecondFactorAttempts } from './second-factor-attempts.ts';

/** What an account is created from: these fields and nothing else. */
interface NewAccount {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
}

/** The second factors an account can finish a sign-in with. */
export type MfaMethod = 'totp' | 'recovery_code' | 'webauthn';

/** A completed sign-in: the session's tokens and a new device cookie for the client (decision 196). */
export type SignedIn = IssuedTokens & { device: string };
/** What a right password answers: a completed sign-in, or the token to give the second factor with. */
export type SignIn = SignedIn | { mfaToken: string; methods: MfaMethod[] };

interface AuthSettings {
  allowSignup: boolean;
  /** Sign-up attempts per client address and hour. */
  signupLimitPerHour: number;
  refreshTokenTtlDays: number;
}

/** Thrown in a sign-in's transaction to roll its challenge back when the second factor was wrong. */
class WrongSecondFactor extends Error {}

/** How long the `mfa_token` of a sign-in waiting for its second factor is good for. */
export const MFA_TOKEN_TTL_MS = 5 * 60 * 1000;

export function createAuthService(deps: {
  db: Db;
  users: Pick<UsersModule, 'accounts' | 'sessions' | 'twoFactor' | 'passkeys'>;
  tokens: TokenService;
  passwords: PasswordHasher;
  secondFactor: SecondFactor;
  attempts: SecondFactorAttempts;
  devices: DeviceCookies;
  cache: Pick<Cache, 'get' | 'set'>;
  counters: GuardCounters;
  clock: Clock;
  logger: Logger;
  settings: AuthSettings;
  onUserChanged: (userId: string) => void;
}) {
  const { db, tokens, passwords, cache, clock, settings } = deps;
  const { accounts, sessions, twoFactor } = deps.users;
  const throttle = createLoginThrottle({ cache, counters: deps.counters, devices: deps.devices, clock, settings });
  const { issuePair, renewPair, startSession } = createSessionIssuer({
    sessions,
    tokens,
    clock,
    refreshTokenTtlDays: settings.refreshTokenTtlDays,
  });

  return {
    /**
     * Creates an account from its named fields only; the role is the caller's to choose, never the
     * request's. Used by sign-up (always `user`), the bootstrap admin and the CLI. A taken address
     * is refused before the password is hashed.
     */
    async createUser(
      input: NewAccount,
      options: { role: Role; actor: 'user' | 'system'; owner?: boolean },
    ): Promise<UserRow> {
      const email = input.email.trim().toLowerCase();
      if (await accounts.findByEmail(email)) throw conflict('A user with this email already exists');
      // Anyone may sign up: that hash waits in a bounded queue (decision 1080); the operator's do not.
      const passwordHash =
        options.actor === 'user' ? await passwords.hashSignUp(input.password) : await passwords.hash(input.password);
      const now = clock.now();
      return db.transaction(async (tx) => {
        const user = await accounts.register(
          {
            email,
            passwordHash,
            firstName: input.firstName ?? '',
            lastName: input.lastName ?? '',
            role: options.role,
            // The operator's own accounts (ADMIN_EMAIL, the command line) have addresses the operator
            // vouches for; one registered by whoever typed it has an address nobody verified (decision 734).
            emailVerified: options.actor === 'system',
            // Only the configured first admin's bootstrap makes the owner's account (decision 903).
            owner: options.actor === 'system' && options.owner === true,
            createdAt: now,
            updatedAt: now,
          },
          tx,
        );
        const actorId = options.actor === 'user' ? user.id : null;
        await audit(
          {
            actorId,
            actorType: options.actor,
            action: 'auth.register',
            subjectUserId: user.id,
            targetType: 'user',
            targetId: user.id,
            details: user.owner ? { role: user.role, owner: true } : { role: user.role },
          },
          now,
          tx,
        );
        return user;
      });
    },

    async register(input: RegisterBody, client: ClientInfo): Promise<UserRow> {
      if (!settings.allowSignup) throw forbidden('Sign-up is disabled');
      await throttle.reserveSignup(client.ip);
      const { email, password, firstName, lastName } = input;
      try {
        return await this.createUser({ email, password, firstName, lastName }, { role: 'user', actor: 'user' });
      } catch (error) {
        if (error instanceof AppError && error.status === 503)
          await throttle.giveBackSignup(client.ip).catch(() => undefined);
        throw error;
      }
    },

    async login(email: string, password: string, client: ClientInfo & LoginClient): Promise<SignIn> {
      const normalized = email.trim().toLowerCase();
      // The account is read before the attempt is counted: a device cookie counts as one only under the
      // password it was earned with (decision 881). A database that is down therefore counts nothing, so
      // an outage does not lock the account out once it is over (docs/decisions/102).
      const user = await accounts.findByEmail(normalized);
      const counted = await throttle.reserve({ email: normalized, passwordHash: user?.passwordHash }, client);
      // Hash even when the account does not exist, at the cost new hashes have here, so timing does
      // not reveal which addresses do. In the bounded sign-in queue (decision 735): refused when full,
      // the password unchecked, and the attempt given back as for an outage.
      let valid: boolean;
      try {
        valid = await passwords.verifySignIn(password, user?.passwordHash ?? passwords.dummyHash);
      } catch (error) {
        await throttle.giveBack(normalized, client, counted).catch(() => {});
        throw error;
      }
      if (!user || !valid) {
        // One audit row either way, so the answer of an unknown address costs what a wrong password
        // costs and its time tells no one which addresses have accounts (decision 902).
        await audit(
          user
            ? {
                actorId: user.id,
                actorType: 'user',
                action: 'auth.login_failed',
                subjectUserId: user.id,
                ip: client.ip,
              }
            : { actorType: 'user', action: 'auth.login_failed', details: { unknownAccount: true }, ip: client.ip },
          clock.now(),
          db,
        );
        throw invalidCredentials();
      }
      // With two-factor on, the attempt stays counted until the second factor is proven (decision 197).
      if (user.status !== 'active' || !user.twoFactorEnabled) await throttle.release(normalized, client, counted);
      if (user.status !== 'active') throw forbidden(`User account is ${user.status}`);
      const now = clock.now();
      if (user.twoFactorEnabled) {
        // The password was right: what remains is the second factor, against this single-use token.
        const mfaToken = newOpaqueToken();
        await twoFactor.openChallenge({
          userId: user.id,
          tokenHash: hashToken(mfaToken),
          createdAt: now,
          expiresAt: new Date(now.getTime() + MFA_TOKEN_TTL_MS),
        });
        await audit(
          {
            actorId: user.id,
            actorType: 'user',
            action: 'auth.login_mfa_required',
            subjectUserId: user.id,
            ip: client.ip,
          },
          now,
          db,
        );
        const methods: MfaMethod[] = user.totpEnabled ? ['totp', 'recovery_code'] : [];
        if ((await deps.users.passkeys.list(user.id)).length > 0) methods.push('webauthn');
        return { mfaToken, methods };
      }
      const pair = await db.transaction((tx) => startSession(user, client, now, tx));
      return { ...pair, device: await throttle.trust(user, client) };
    },

    /**
     * The second step of a sign-in with two-factor on: the `mfa_token` and a TOTP code or a recovery
     * code, counted per account (decision 197); a right one gives the password's attempt back and spends
     * the token (decision 141).
     */
    async verifySecondFactor(body: TwoFactorVerifyBody, client: ClientInfo & LoginClient): Promise<SignedIn> {
      oneAnswer(body);
      const now = clock.now();
      const challenge = await twoFactor.findChallenge(hashToken(body.mfa_token), now);
      if (!challenge) throw invalidMfaToken();
      const user = await accounts.findById(challenge.userId);
      if (!user?.twoFactorEnabled) throw invalidMfaToken();
      // The owner's device (its cookie, under the present password) counts its codes apart (decision 1052).
      const attempt = await deps.attempts.reserve(user, deps.devices.verify(client.device, user, now));
      // What can refuse the sign-in is settled before the second factor is spent, so a refused one
      // spends no recovery code and mails nobody about one (decision 883): the account's status, then
      // the challenge (a concurrent sign-in with it waits on its row). A wrong code rolls the challenge back.
      const outcome: { pair?: IssuedTokens; error?: AppError; failed?: boolean } = await db
        .transaction(async (tx) => {
          const current = await accounts.findById(user.id, tx);
          if (current?.status !== 'active')
            return { error: forbidden(`User account is ${current?.status ?? 'deleted'}`) };
          if (!(await twoFactor.spendChallenge(challenge.id, now, tx))) return { error: invalidMfaToken() };
          const method = await deps.secondFactor.check(current, body, { now, ip: client.ip, purpose: 'sign_in' }, tx);
          if (!method) throw new WrongSecondFactor();
          return { pair: await startSession(current, client, now, tx, method) };
        })
        .catch((error: unknown) => {
          if (error instanceof WrongSecondFactor) return { error: wrongSecondFactor(), failed: true };
          throw error;
        });
      if (outcome.failed) {
        await attempt.failed();
        await audit(
          {
            actorId: user.id,
            actorType: 'user',
            action: 'auth.2fa_failed',
            subjectUserId: user.id,
            ip: client.ip,
            details: { purpose: 'sign_in', wrong: body.code !== undefined ? 'code' : 'recovery_code' },
          },
          now,
          db,
        );
      } else {
        await attempt.succeeded();
      }
      if (outcome.error) throw outcome.error;
      await throttle.release(user.email, client, await throttle.classify(user, client));
      return { ...outcome.pair!, device: await throttle.trust(user, client) };
    },

    /**
     * A signed-in user presents a TOTP code again (decision 143): the session is marked with it and a
     * fresh pair carries it. Codes count per session and in an account-wide step-up day (decision 733).
     */
    async stepUp(
      actor: { id: string; sessionId: string | null },
      body: TwoFactorCodeBody,
      client: ClientInfo,
    ): Promise<IssuedTokens> {
      if (!actor.sessionId) throw forbidden('A step-up needs a session of this service; sign in with your password');
      const sessionId = actor.sessionId;
      const user = await accounts.findById(actor.id);
      if (!user) throw notFound('User not found');
      if (!user.twoFactorEnabled) throw conflict('Two-factor authentication is not on');
      // Held per session, apart from the sign-in's codes (decision 733): a session taken from the owner
      // that guesses holds itself, not the owner's sign-in, password change or other sessions.
      const attempt = await deps.attempts.reserveStepUp(user, sessionId);
      const now = clock.now();
      const pair = await db.transaction(async (tx) => {
        const method = await deps.secondFactor.check(
          user,
          { code: body.code },
          { now, ip: client.ip, purpose: 'step_up' },
          tx,
        );
        if (!method) return undefined;
        const session = await sessions.markSecondFactor(sessionId, method, now, tx);
        await audit(
          {
            actorId: user.id,
            actorType: 'user',
            action: 'auth.2fa.step_up',
            subjectUserId: user.id,
            targetType: 'session',
            targetId: sessionId,
            ip: client.ip,
          },
          now,
          tx,
        );
        return renewPair(user, sessionId, session!, tx);
      });
      if (!pair) {
        await attempt.failed();
        await audit(
          {
            actorId: user.id,
            actorType: 'user',
            action: 'auth.2fa_failed',
            subjectUserId: user.id,
            ip: client.ip,
            details: { purpose: 'step_up', wrong: 'code' },
          },
          now,
          db,
        );
        throw wrongSecondFactor();
      }
      await attempt.succeeded();
      return pair;
    },

    async refresh(refreshToken: string): Promise<IssuedTokens> {
      const now = clock.now();
      const outcome = await db.transaction(async (tx) => {
        const rotation = await sessions.rotate(hashToken(refreshToken), now, tx);
        if (rotation.kind === 'reused') {
          await audit(
            {
              actorType: 'system',
              action: 'auth.refresh_reuse_detected',
              subjectUserId: rotation.userId,
              targetType: 'session',
              targetId: rotation.sessionId,
            },
            now,
            tx,
          );
          return { error: invalidRefresh(), revokedUser: rotation.userId };
        }
        if (rotation.kind === 'invalid') return { error: invalidRefresh() };
        if (rotation.kind === 'inactive') return { error: forbidden(`User account is ${rotation.status}`) };
        return { pair: await issuePair(rotation.user, rotation.sessionId, rotation.authentication, tx) };
      });
      if (outcome.revokedUser) deps.onUserChanged(outcome.revokedUser);
      if (outcome.error) throw outcome.error;
      return outcome.pair!;
    },

    /** A null session is an identity provider's: the provider ends it, we only record the logout. */
    async logout(userId: string, sessionId: string | null, client: ClientInfo): Promise<void> {
      const now = clock.now();
      await db.transaction(async (tx) => {
        if (sessionId) await sessions.end(sessionId, 'logout', now, tx);
        await audit(
          {
            actorId: userId,
            actorType: 'user',
            action: 'auth.logout',
            subjectUserId: userId,
            targetType: 'session',
            targetId: sessionId ?? undefined,
            ip: client.ip,
          },
          now,
          tx,
        );
      });
      deps.onUserChanged(userId);
    },

    async me(userId: string): Promise<UserRow> {
      const user = await accounts.findById(userId);
      if (!user) throw notFound('User not found');
      return user;
    },

    /** Device sessions neither revoked nor expired now; for the dashboard. */
    async countActiveSessions(): Promise<number> {
      return sessions.countActive(clock.now());
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
