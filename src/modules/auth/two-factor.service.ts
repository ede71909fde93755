// A signed-in user's own second factor (decision 140): setup (a new secret, sealed, pending), enable
// (a right code turns it on and answers ten recovery codes once), disable (password and a second
// factor; other sessions are signed out) and step-up (a fresh second factor for what moves money).
import { audit } from './auth.audit.ts';
import type { GuardCounters } from '../../platform/cache/guard-counters.ts';
import type { Clock } from '../../platform/clock.ts';
import type { PasswordHasher } from '../../platform/crypto/passwords.ts';
import type { Db } from '../../platform/db/database.ts';
import { badRequest, conflict, invalidField, notFound, rateLimited } from '../../platform/http/errors.ts';
import type { UserRow, UsersModule } from '../users/index.ts';
import type { TwoFactorCodeBody, TwoFactorDisableBody, TwoFactorSetupBody } from './auth.schemas.ts';
import type { ClientInfo } from './session-issuer.ts';
import { LOGIN_LIMITS } from './login-throttle.ts';
import { oneAnswer, type SecondFactor, type SecondFactorAnswer } from './second-factor.ts';
import type { SecondFactorAttempts } from './second-factor-attempts.ts';
import { hashRecoveryCode, matchingStep, newRecoveryCodes, newTotpSecret, otpauthUrl, qrSvg } from './totp.ts';

/** Wrong passwords a signed-in user may give these operations per window, as for password changes (codes: decision 197). */
const TWO_FACTOR_LIMITS = { perUser: LOGIN_LIMITS.perAccountAndClient, windowMs: LOGIN_LIMITS.windowMs };

/** A TOTP enrolment about to be confirmed: the secret, as a URL for authenticator apps and as a QR code. */
export interface TwoFactorEnrolment {
  secret: string;
  otpauthUrl: string;
  qrSvg: string;
}

interface TwoFactorActor {
  id: string;
  /** The session to keep signed in (null for an identity provider's token). */
  sessionId: string | null;
}

const wrongAnswer = (answer: SecondFactorAnswer) =>
  answer.code !== undefined
    ? invalidField(
        ['body', 'code'],
        'the code is not valid, or was used already; wait for the next one and check the time on your device',
        answer.code,
      )
    : invalidField(
        ['body', 'recovery_code'],
        'the recovery code is not valid or was used already',
        answer.recovery_code,
      );

export function createTwoFactorService(deps: {
  db: Db;
  users: Pick<UsersModule, 'accounts' | 'twoFactor'>;
  secondFactor: SecondFactor;
  attempts: SecondFactorAttempts;
  passwords: Pick<PasswordHasher, 'verify'>;
  /** The password counter: shared across instances even while Redis is away (decision 455). */
  counters: GuardCounters;
  clock: Clock;
  onUserChanged: (userId: string) => void;
}) {
  const { db, secondFactor, attempts, passwords, counters, clock } = deps;
  const { accounts, twoFactor } = deps.users;

  /**
   * Counts the attempt before anything is checked; a successful one gives them all back. Counted per
   * session (decision 732): a session's wrong passwords hold that session only, so one taken from the
   * owner cannot keep the owner's own from turning two-factor on (which signs it out). An identity
   * provider's token has no session of ours and counts per account.
   */
  async function reserve(actor: TwoFactorActor): Promise<() => Promise<void>> {
    const key = actor.sessionId ? `two-factor:session:${actor.sessionId}` : `two-factor:user:${actor.id}`;
    const attempt = await counters.incr(key, TWO_FACTOR_LIMITS.windowMs);
    if (attempt.count > TWO_FACTOR_LIMITS.perUser)
      throw rateLimited(attempt.resetMs / 1000, 'Too many two-factor attempts; try again later');
    return () => counters.del(key);
  }

  /**
   * Codes given while signed in count as a step-up's do (decision 1150): in the session's own counters
   * and the account's step-up day, never in the sign-in's, so whoever locks the sign-in's codes does not
   * hold the owner's session, and a session's wrong codes here hold that session only. An identity
   * provider's token has no session of ours; its codes count as one session of the account.
   */
  const reserveCode = (user: UserRow, actor: TwoFactorActor) =>
    attempts.reserveStepUp(user, actor.sessionId ?? `provider-token:${user.id}`);

  async function account(userId: string): Promise<UserRow> {
    const user = await accounts.findById(userId);
    if (!user) throw notFound('User not found');
    return user;
  }

  async function checkPassword(user: UserRow, password: string, client: ClientInfo, purpose: string): Promise<void> {
    if (await passwords.verify(password, user.passwordHash)) return;
    await audit(
      {
        actorId: user.id,
        actorType: 'user',
        action: 'auth.2fa_failed',
        subjectUserId: user.id,
        ip: client.ip,
        details: { purpose, wrong: 'password' },
      },
      clock.now(),
      db,
    );
    throw badRequest('Password is incorrect');
  }

  return {
    /**
     * For the rotate-api-keys job: re-seals under the current encryption key every TOTP secret sealed
     * under a retired one (decision 140); one under a key no longer configured is counted `unreadable`.
     */
    async reencryptAll(): Promise<{ scanned: number; reencrypted: number; unreadable: number }> {
      let scanned = 0;
      let reencrypted = 0;
      let unreadable = 0;
      let after: string | null = null;
      for (;;) {
        const page = await twoFactor.sealedPage(after, 500);
        if (page.length === 0) break;
        for (const { id, sealed } of page) {
          scanned += 1;
          if (!secondFactor.isStale(sealed)) continue;
          let resealed: string;
          try {
            resealed = secondFactor.reseal(id, sealed);
          } catch {
            unreadable += 1;
            continue;
          }
          const now = clock.now();
          const swapped = await db.transaction(async (tx) => {
            if (!(await twoFactor.replaceSealed(id, sealed, resealed, tx))) return false;
            await audit(
              {
                actorType: 'job',
                action: 'auth.2fa.reencrypt',
                subjectUserId: id,
                targetType: 'user',
                targetId: id,
                details: { encryption_key_id: secondFactor.currentKeyId() },
              },
              now,
              tx,
            );
            return true;
          });
          if (swapped) reencrypted += 1;
        }
        after = page[page.length - 1]!.id;
      }
      return { scanned, reencrypted, unreadable };
    },

    /**
     * The password of a signed-in user about to enrol a second factor, counted (and audited when wrong) as
     * setup's is, on the same counter: 400 when wrong, 429 past the limit (decision 681).
     */
    async confirmPassword(
      user: UserRow,
      sessionId: string | null,
      password: string,
      client: ClientInfo,
      purpose: string,
    ): Promise<void> {
      const succeeded = await reserve({ id: user.id, sessionId });
      await checkPassword(user, password, client, purpose);
      await succeeded();
    },

    /**
     * `assertSteppedUp` throws unless the request presented a second factor recently (the guards'
     * step-up check): an account that has one already (a passkey) adds an authenticator app only with
     * it, as it adds a passkey (decision 731).
     */
    async setup(
      body: TwoFactorSetupBody,
      actor: TwoFactorActor,
      client: ClientInfo,
      assertSteppedUp: () => void,
    ): Promise<TwoFactorEnrolment> {
      const user = await account(actor.id);
      if (user.totpEnabled) throw conflict('Two-factor authentication is on already; disable it first to enroll again');
      if (user.twoFactorEnabled) assertSteppedUp();
      const succeeded = await reserve(actor);
      await checkPassword(user, body.password, client, 'setup');
      await succeeded();
      const secret = newTotpSecret();
      const now = clock.now();
      if (!(await twoFactor.setPendingSecret(user.id, secondFactor.seal(user.id, secret), now))) {
        throw conflict('Two-factor authentication is on already; disable it first to enroll again');
      }
      await audit(
        {
          actorId: user.id,
          actorType: 'user',
          action: 'auth.2fa.setup',
          subjectUserId: user.id,
          targetType: 'user',
          targetId: user.id,
          ip: client.ip,
        },
        now,
        db,
      );
      const url = otpauthUrl(secret, user.email);
      return { secret, otpauthUrl: url, qrSvg: qrSvg(url) };
    },

    async enable(body: TwoFactorCodeBody, actor: TwoFactorActor, client: ClientInfo): Promise<string[]> {
      const user = await account(actor.id);
      if (user.totpEnabled) throw conflict('Two-factor authentication is on already');
      const secret = secondFactor.secretOf(user);
      if (!secret) throw conflict('No two-factor setup is pending; call POST /api/auth/2fa/setup first');
      const attempt = await reserveCode(user, actor);
      const now = clock.now();
      const step = matchingStep(secret, body.code, now);
      if (step === undefined) {
        await attempt.failed();
        throw wrongAnswer(body);
      }
      const codes = newRecoveryCodes();
      const outcome = await db.transaction(async (tx) => {
        const enabled = await twoFactor.enable(
          user.id,
          step,
          codes.map((code) => hashRecoveryCode(user.id, code)),
          actor.sessionId,
          now,
          tx,
        );
        if (enabled !== 'enabled') return enabled;
        await audit(
          {
            actorId: user.id,
            actorType: 'user',
            action: 'auth.2fa.enable',
            subjectUserId: user.id,
            targetType: 'user',
            targetId: user.id,
            ip: client.ip,
          },
          now,
          tx,
        );
        return 'enabled' as const;
      });
      if (outcome === 'replayed') {
        await attempt.failed();
        throw wrongAnswer(body);
      }
      await attempt.succeeded();
      if (outcome === 'raced') throw conflict('Two-factor authentication is on already');
      deps.onUserChanged(user.id);
      return codes;
    },

    async disable(body: TwoFactorDisableBody, actor: TwoFactorActor, client: ClientInfo): Promise<void> {
      oneAnswer(body);
      const user = await account(actor.id);
      if (!user.totpEnabled) throw conflict('Two-factor authentication is not on');
      const succeeded = await reserve(actor);
      await checkPassword(user, body.password, client, 'disable_2fa');
      const attempt = await reserveCode(user, actor);
      const now = clock.now();
      const outcome = await db.transaction(async (tx) => {
        const method = await secondFactor.check(user, body, { now, ip: client.ip, purpose: 'disable_2fa' }, tx);
        if (!method) return undefined;
        const revoked = await twoFactor.disable(user.id, actor.sessionId, now, tx);
        await audit(
          {
            actorId: user.id,
            actorType: 'user',
            action: 'auth.2fa.disable',
            subjectUserId: user.id,
            targetType: 'user',
            targetId: user.id,
            ip: client.ip,
            details: { method, sessionsRevoked: revoked },
          },
          now,
          tx,
        );
        return method;
      });
      if (!outcome) {
        await attempt.failed();
        throw wrongAnswer(body);
      }
      await attempt.succeeded();
      await succeeded();
      deps.onUserChanged(user.id);
    },
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
