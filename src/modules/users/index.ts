// The identity module: accounts, device sessions, refresh tokens and password-reset links. It owns
// their tables and serves no routes of its own. Its port is use cases holding the account rules
// (*.service.ts); its repositories stay inside. Auth (sign-in), admin (accounts), the payments
// webhook, the streams and the tracker use the port, and the bearer guards find principals through it.
import { createExternalTokenVerifier } from '../../platform/auth/external-tokens.ts';
import { createGuards, type Guards, type PrincipalSource } from '../../platform/auth/guards.ts';
import { unknowablePasswordHash } from '../../platform/crypto/passwords.ts';
import { bindJob, type BoundJob } from '../../platform/jobs.ts';
import type { DbExecutor } from '../../platform/db/database.ts';
import type { Platform } from '../../platform/platform.ts';
import { cleanupDeviceSessionsJob } from './cleanup-device-sessions.job.ts';
import { cleanupExpiredTokensJob } from './cleanup-expired-tokens.job.ts';
import { createAccountsRepository } from './accounts.repository.ts';
import { createAccountsService, type AccountsService } from './accounts.service.ts';
import { createSessionsRepository } from './sessions.repository.ts';
import { createSessionsService, type SessionsService } from './sessions.service.ts';
import { createTwoFactorRepository } from './two-factor.repository.ts';
import { createTwoFactorService, type TwoFactorService } from './two-factor.service.ts';
import { createApiTokensRepository } from './api-tokens.repository.ts';
import { createApiTokensService, type ApiTokensService } from './api-tokens.service.ts';
import { createPasskeysRepository } from './passkeys.repository.ts';
import { createPasskeysService, type PasskeysService } from './passkeys.service.ts';
import { createEmailVerificationRepository } from './email-verification.repository.ts';
import { createEmailVerificationService, type EmailVerificationService } from './email-verification.service.ts';
export type { VerificationSpent } from './email-verification.repository.ts';
export type { PasskeyRow } from './passkeys.repository.ts';
export { PASSKEY_PURPOSES, type PasskeyPurpose } from './passkeys.tables.ts';
export type { ApiTokenRow } from './api-tokens.repository.ts';
export type { SessionAuthentication } from './sessions.service.ts';
export { hasFreshSecondFactor, hasSecondFactor } from '../../platform/auth/second-factor-rules.ts';

export type { AccountAnnex, ListedAccount, UserFilter, UserRow } from './accounts.repository.ts';
export { SEARCH_TOTAL_BOUND } from './accounts-search.ts';
export { Account } from './accounts.schemas.ts';
export { accountWire } from './accounts.wire.ts';
export { FREE_TIER, userNotFound } from './accounts.service.ts';
export * from './users.domain.ts';
export { BILLING_AUDIT_ACTIONS, type BillingAuditAction } from './users.audit.ts';
export { USERS_MODULE } from './users.module.ts';

/**
 * What another module ends on an account a provider's first link claims from whoever registered its
 * address (decision 790): run in the link's transaction, the account row locked; it answers what to do
 * once that transaction committed (drop a cache, tell the account's stream), or nothing.
 */
export type ClaimCleanup = (userId: string, now: Date, tx: DbExecutor) => Promise<(() => unknown) | undefined>;

export interface UsersModule {
  name: 'users';
  /**
   * Adds what is ended besides the ways in when a provider's first link claims an account whose address
   * nobody verified (decision 790): the registrant's exchange keys, hook secrets and notification targets.
   */
  onClaimed(cleanup: ClaimCleanup): void;
  /** The bearer guards, checking every request's session and account through this module. */
  guards: Guards;
  /** The use cases of an account, holding its rules; the tables stay behind them. */
  accounts: AccountsService;
  /** Device sessions and their refresh tokens. */
  sessions: SessionsService;
  /** The second factor: sealed TOTP secrets, spent time steps, recovery codes, pending sign-ins. */
  twoFactor: TwoFactorService;
  /** Scoped API tokens (`tpk_…`). */
  apiTokens: ApiTokensService;
  /** Passkeys (WebAuthn credentials) and their ceremonies' challenges. */
  passkeys: PasskeysService;
  /** The codes that prove an account's address (decision 845). */
  emailVerification: EmailVerificationService;
  /** Its jobs: the cleanups of dead sessions and tokens. */
  jobs: readonly BoundJob[];
}

export function createUsersModule(
  platform: Pick<Platform, 'config' | 'database' | 'tokens' | 'clock' | 'fetch'>,
): UsersModule {
  const { config, database, tokens, clock } = platform;
  const accounts = createAccountsRepository(database.db);
  const sessions = createSessionsRepository(database.db);
  const twoFactor = createTwoFactorRepository(database.db);
  const apiTokens = createApiTokensRepository(database.db);
  const claimCleanups: ClaimCleanup[] = [];
  const principals: PrincipalSource = {
    bySession: (sessionId, userId) => sessions.principal(sessionId, userId),
    async byExternalIdentity(identity) {
      const linked = await accounts.findByExternalIdentity(identity.issuer, identity.subject);
      if (linked) return linked;
      if (!identity.emailVerified) return 'unverified';
      const account = await accounts.findByEmail(identity.email);
      if (!account) return undefined;
      const now = clock.now();
      const link = { issuer: identity.issuer, subject: identity.subject, userId: account.id, linkedAt: now };
      if (account.emailVerified) return (await accounts.linkExternalIdentity(link)) ? account : 'linked_elsewhere';
      // An address we never verified (decision 734): whoever registered it may not own it, and the provider
      // just proved who does. The link claims the account for them: the password becomes one nobody knows,
      // every session, API token, reset link and second factor ends, and the address counts as verified.
      const outcome = await database.db.transaction(async (tx) => {
        const [locked] = await accounts.lockForUpdate([account.id], tx);
        if (!locked) return undefined;
        if (!(await accounts.linkExternalIdentity(link, tx))) return 'linked_elsewhere';
        if (locked.emailVerified) return locked;
        const claimed = await accounts.update(
          account.id,
          { passwordHash: unknowablePasswordHash(), emailVerified: true, updatedAt: now },
          tx,
        );
        await sessions.expireResetTokens(account.id, now, tx);
        await apiTokens.revokeAllOf([account.id], now, tx);
        await sessions.revokeAll(account.id, now, 'external_identity_claimed', tx);
        await twoFactor.reset(account.id, now, tx);
        // What the registrant set up that acts or reports for the account goes too (decision 790).
        const afterwards: (() => unknown)[] = [];
        for (const cleanup of claimCleanups) {
          const then = await cleanup(account.id, now, tx);
          if (then) afterwards.push(then);
        }
        return { claimed, afterwards };
      });
      // The ended sessions stop at once, not when their cached principals run out.
      guards.invalidate(account.id);
      if (outcome === undefined || outcome === 'linked_elsewhere' || !('afterwards' in outcome)) return outcome;
      for (const then of outcome.afterwards) await then();
      return outcome.claimed;
    },
    touch: (sessionId, at) => sessions.touch(sessionId, at),
    byApiToken: (tokenHash) => apiTokens.principal(tokenHash),
    touchApiToken: (tokenId, at) => apiTokens.touch(tokenId, at),
  };
  const { externalTokens } = config.auth;
  const external = externalTokens
    ? createExternalTokenVerifier(externalTokens, { clock, fetch: platform.fetch })
    : undefined;
  const guards = createGuards({
    tokens,
    external,
    principals,
    clock,
    settings: {
      requireTwoFactorRoles: config.auth.requireTwoFactorRoles,
      stepUpMaxAgeMinutes: config.auth.stepUpMaxAgeMinutes,
    },
  });
  const sessionsService = createSessionsService({ sessions, accounts });
  return {
    name: 'users',
    onClaimed: (cleanup) => void claimCleanups.push(cleanup),
    guards,
    accounts: createAccountsService({ accounts, sessions, twoFactor, apiTokens }),
    sessions: sessionsService,
    twoFactor: createTwoFactorService({ twoFactor, sessions }),
    apiTokens: createApiTokensService({ apiTokens }),
    passkeys: createPasskeysService({ passkeys: createPasskeysRepository(database.db) }),
    emailVerification: createEmailVerificationService({ codes: createEmailVerificationRepository(database.db) }),
    jobs: [
      bindJob(cleanupDeviceSessionsJob, {
        sessions: sessionsService,
        idleDays: config.auth.sessionIdleDays,
        forgetPrincipals: () => guards.invalidate(),
      }),
      bindJob(cleanupExpiredTokensJob, { sessions: sessionsService }),
    ],
  };
}
