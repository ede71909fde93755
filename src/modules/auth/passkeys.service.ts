// Passkey ceremonies (issue 41, decision 204): options answer a single-use challenge bound to its
// purpose and user; verify spends it first, so a failed or replayed answer can never be tried again,
// then registers the passkey, or signs in (without a password, or as the second factor of one), or
// steps the session up. Failed assertions are audited and count in the login throttle as wrong codes do.
import { audit } from './auth.audit.ts';
import { hashToken, newOpaqueToken, type TokenService } from '../../platform/auth/tokens.ts';
import type { Cache } from '../../platform/cache/cache.ts';
import type { GuardCounters } from '../../platform/cache/guard-counters.ts';
import type { Clock } from '../../platform/clock.ts';
import type { WebauthnSettings } from '../../config/webauthn-settings.ts';
import { clientKey } from '../../platform/http/client-address.ts';
import type { Db } from '../../platform/db/database.ts';
import { AppError, badRequest, conflict, forbidden, invalidField, rateLimited } from '../../platform/http/errors.ts';
import type { PasskeyPurpose, PasskeyRow, UserRow, UsersModule } from '../users/index.ts';
import { invalidMfaToken } from './auth.answers.ts';
import type { DeviceCookies } from './device-cookie.ts';
import { createLoginThrottle, type LoginClient } from './login-throttle.ts';
import type { PasskeyOptionsBody, PasskeyVerifyBody } from './passkeys.schemas.ts';
import { createWebauthn, userHandleOf } from './passkeys.webauthn.ts';
import { createSessionIssuer, type ClientInfo, type IssuedTokens } from './session-issuer.ts';

const CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** Options one client address may ask for per minute: each is a row until it expires. */
const OPTIONS_PER_MINUTE = 30;

/** Who calls, when a bearer token came with the request. */
export interface PasskeyActor {
  id: string;
  sessionId: string | null;
}

/**
 * What verify did: a passkey registered, or a token pair issued; a sign-in (`login`, `mfa`) also answers
 * the device cookie to set (decision 730).
 */
export type PasskeyOutcome = { registered: PasskeyRow } | { tokens: IssuedTokens & { device?: string } };

const refused = (detail = 'The passkey could not be verified') =>
  new AppError('unauthenticated', detail, { headers: { 'www-authenticate': 'Bearer' } });
const invalidChallenge = () => refused('Invalid, used or expired challenge_token; ask for new options');

export function createPasskeyCeremonies(deps: {
  db: Db;
  users: Pick<UsersModule, 'accounts' | 'sessions' | 'twoFactor' | 'passkeys'>;
  tokens: TokenService;
  devices: DeviceCookies;
  /** The options' per-address counter (not a guard: a passkey cannot be guessed) and the known-address marks. */
  cache: Pick<Cache, 'incr' | 'get' | 'set'>;
  /** The sign-in throttle's counters (decision 455). */
  counters: GuardCounters;
  clock: Clock;
  settings: { webauthn: WebauthnSettings; refreshTokenTtlDays: number; signupLimitPerHour: number };
  onUserChanged: (userId: string) => void;
  /** A signed-in user's password before a first second factor is enrolled: counted, 400 when wrong (decision 681). */
  confirmPassword: (
    user: UserRow,
    sessionId: string | null,
    password: string,
    client: ClientInfo,
    purpose: string,
  ) => Promise<void>;
}) {
  const { db, tokens, cache, clock, settings } = deps;
  const { accounts, sessions, twoFactor, passkeys } = deps.users;
  const webauthn = createWebauthn(settings.webauthn);
  const throttle = createLoginThrottle({ cache, counters: deps.counters, devices: deps.devices, clock, settings });
  const { renewPair, startSession } = createSessionIssuer({
    sessions,
    tokens,
    clock,
    refreshTokenTtlDays: settings.refreshTokenTtlDays,
  });

  async function reserveOptions(ip: string | undefined): Promise<void> {
    const attempt = await cache.incr(`passkey-options:client:${clientKey(ip) ?? 'unknown'}`, 60_000);
    if (attempt.count > OPTIONS_PER_MINUTE)
      throw rateLimited(attempt.resetMs / 1000, 'Too many passkey requests; try again later');
  }

  /** The account behind an actor, or 401 as for a token whose account is gone. */
  async function accountOf(actor: PasskeyActor | undefined): Promise<UserRow> {
    const user = actor ? await accounts.findById(actor.id) : undefined;
    if (!user)
      throw new AppError('unauthenticated', 'Not authenticated', { headers: { 'www-authenticate': 'Bearer' } });
    return user;
  }

  async function failed(
    user: UserRow | undefined,
    purpose: PasskeyPurpose,
    reason: string,
    client: ClientInfo,
    passkey?: PasskeyRow,
  ): Promise<AppError> {
    await audit(
      {
        actorId: user?.id ?? null,
        actorType: 'user',
        action: reason === 'counter' ? 'auth.passkey.clone_suspected' : 'auth.passkey_failed',
        subjectUserId: user?.id,
        targetType: passkey ? 'passkey' : undefined,
        targetId: passkey?.id,
        ip: client.ip,
        details: { purpose, reason },
      },
      clock.now(),
      db,
    );
    return refused();
  }

  return {
    async options(
      body: PasskeyOptionsBody,
      actor: PasskeyActor | undefined,
      client: ClientInfo,
    ): Promise<{ challengeToken: string; options: { challenge: string } }> {
      await reserveOptions(client.ip);
      const token = newOpaqueToken();
      const now = clock.now();
      let bound: {
        userId: string | null;
        namedAccount?: boolean;
        sessionId: string | null;
        mfaChallengeId: string | null;
      };
      let options: { challenge: string };
      if (body.purpose === 'register') {
        const user = await accountOf(actor);
        // A first second factor takes the password, as a TOTP enrolment does: a bearer alone (a stolen access
        // token) would otherwise enrol a passkey that signs in without the password and that the owner, asked
        // for it at the next sign-in, does not have (decision 681). With one, the route asked a fresh one.
        if (!user.twoFactorEnabled) {
          if (body.password === undefined) throw invalidField(['body', 'password'], 'Field required', body, 'missing');
          await deps.confirmPassword(user, actor!.sessionId, body.password, client, 'passkey_register');
        }
        bound = { userId: user.id, sessionId: actor!.sessionId, mfaChallengeId: null };
        options = await webauthn.registrationOptions(token, user, await passkeys.list(user.id));
      } else if (body.purpose === 'step-up') {
        const user = await accountOf(actor);
        if (!actor!.sessionId) throw forbidden('A step-up needs a session of this service; sign in first');
        const own = await passkeys.list(user.id);
        if (own.length === 0) throw conflict('You have no passkey');
        bound = { userId: user.id, sessionId: actor!.sessionId, mfaChallengeId: null };
        options = await webauthn.authenticationOptions(token, own);
      } else if (body.purpose === 'mfa') {
        if (body.mfa_token === undefined) throw invalidField(['body', 'mfa_token'], 'Field required', body, 'missing');
        const challenge = await twoFactor.findChallenge(hashToken(body.mfa_token), now);
        if (!challenge) throw invalidMfaToken();
        const own = await passkeys.list(challenge.userId);
        if (own.length === 0) throw conflict('This account has no passkey; use another second factor');
        bound = { userId: challenge.userId, sessionId: null, mfaChallengeId: challenge.id };
        options = await webauthn.authenticationOptions(token, own);
      } else {
        // Every passkey of this site is discoverable (registered with a resident key), so no sign-in names
        // credentials: the options are the same whatever the e-mail, and tell no one which addresses have an
        // account or a passkey. A named e-mail binds the ceremony: only its account's passkeys complete it,
        // none when no account has it (decision 1100).
        const email = body.email?.trim().toLowerCase();
        const user = email ? await accounts.findByEmail(email) : undefined;
        bound = { userId: user?.id ?? null, namedAccount: email !== undefined, sessionId: null, mfaChallengeId: null };
        options = await webauthn.authenticationOptions(token, []);
      }
      await passkeys.openChallenge({
        tokenHash: hashToken(token),
        purpose: body.purpose,
        ...bound,
        createdAt: now,
        expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
      });
      return { challengeToken: token, options };
    },

    async verify(
      body: PasskeyVerifyBody,
      actor: PasskeyActor | undefined,
      client: ClientInfo & LoginClient,
    ): Promise<PasskeyOutcome> {
      const now = clock.now();
      const challenge = await passkeys.spendChallenge(hashToken(body.challenge_token), now);
      if (!challenge) throw invalidChallenge();
      const { purpose } = challenge;
      // Registration and step-up act for the signed-in session that asked for the options.
      if (purpose === 'register' || purpose === 'step-up') {
        if (!actor || actor.id !== challenge.userId || actor.sessionId !== challenge.sessionId)
          throw invalidChallenge();
      }

      if (purpose === 'register') {
        const user = await accountOf(actor);
        const outcome = await webauthn.verifyRegistration(body.challenge_token, body.response);
        if ('failure' in outcome) throw badRequest(`The passkey could not be registered: ${outcome.failure}`);
        const existing = await passkeys.list(user.id);
        const registered = await db.transaction(async (tx) => {
          const row = await passkeys.add(
            {
              ...outcome.credential,
              userId: user.id,
              name: body.name ?? `Passkey ${existing.length + 1}`,
              createdAt: now,
            },
            tx,
          );
          if (!row) return undefined;
          // The ceremony verified the user: a second factor, as a TOTP enrolment's code is.
          if (actor!.sessionId) await sessions.markSecondFactor(actor!.sessionId, 'webauthn', now, tx);
          await audit(
            {
              actorId: user.id,
              actorType: 'user',
              action: 'auth.passkey.register',
              subjectUserId: user.id,
              targetType: 'passkey',
              targetId: row.id,
              ip: client.ip,
              details: { name: row.name, backedUp: row.backedUp },
            },
            now,
            tx,
          );
          return row;
        });
        if (!registered) throw conflict('This passkey is registered already');
        deps.onUserChanged(user.id);
        return { registered };
      }

      const passkey = await passkeys.findByCredentialId(body.response.id);
      const owner = passkey ? await accounts.findById(passkey.userId) : undefined;
      const expectedUser = challenge.userId ? await accounts.findById(challenge.userId) : undefined;
      // Counted before anything is checked, as a password or a code is; a success gives it back.
      const counted = owner ?? expectedUser;
      // Counted by the device cookie when it is one of the account's, else by the address (decision 196).
      const reservation = counted ? await throttle.reserve(counted, client) : undefined;
      if (!passkey || !owner) throw await failed(expectedUser, purpose, 'unknown_credential', client);
      if ((challenge.userId || challenge.namedAccount) && challenge.userId !== owner.id)
        throw await failed(expectedUser, purpose, 'other_account', client, passkey);
      const handle = body.response.response.userHandle;
      if (handle && handle !== Buffer.from(userHandleOf(owner.id)).toString('base64url'))
        throw await failed(owner, purpose, 'user_handle', client, passkey);
      const verified = await webauthn.verifyAuthentication(body.challenge_token, body.response, passkey);
      if ('failure' in verified) throw await failed(owner, purpose, verified.failure, client, passkey);

      const outcome = await db.transaction(async (tx) => {
        // A concurrent assertion stored a later counter first: this one is as stale as a clone's.
        if (!(await passkeys.recordUse(passkey.id, { ...verified, at: now }, tx))) return { failure: 'counter' };
        const current = await accounts.findById(owner.id, tx);
        if (current?.status !== 'active')
          return { error: forbidden(`User account is ${current?.status ?? 'deleted'}`) };
        if (purpose === 'login')
          return { tokens: await startSession(current, client, now, tx, 'webauthn', 'webauthn') };
        if (purpose === 'mfa') {
          if (!challenge.mfaChallengeId || !(await twoFactor.spendChallenge(challenge.mfaChallengeId, now, tx)))
            return { error: invalidMfaToken() };
          return { tokens: await startSession(current, client, now, tx, 'webauthn') };
        }
        const sessionId = challenge.sessionId!;
        const session = await sessions.markSecondFactor(sessionId, 'webauthn', now, tx);
        if (!session) return { error: invalidChallenge() };
        await audit(
          {
            actorId: current.id,
            actorType: 'user',
            action: 'auth.2fa.step_up',
            subjectUserId: current.id,
            targetType: 'session',
            targetId: sessionId,
            ip: client.ip,
            details: { method: 'webauthn' },
          },
          now,
          tx,
        );
        return { tokens: await renewPair(current, sessionId, session, tx) };
      });
      if (outcome.failure) throw await failed(owner, purpose, outcome.failure, client, passkey);
      if (outcome.error) throw outcome.error;
      if (reservation) await throttle.release(owner.email, client, reservation);
      if (purpose === 'step-up') return { tokens: outcome.tokens! };
      // A completed sign-in, as a TOTP code's (decision 730): the password's attempt of a sign-in this
      // passkey finished is given back, and the client becomes the owner's (a known address, a device cookie).
      if (purpose === 'mfa') await throttle.release(owner.email, client, await throttle.classify(owner, client));
      return { tokens: { ...outcome.tokens!, device: await throttle.trust(owner, client) } };
    },
  };
}

export type PasskeyCeremonies = ReturnType<typeof createPasskeyCeremonies>;
