import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { AuthDeps } from './auth.deps.ts';
import { createDeviceCookies } from './device-cookie.ts';
import { createSecondFactor } from './second-factor.ts';
import { createSecondFactorAttempts } from './second-factor-attempts.ts';
import { createTwoFactorService } from './two-factor.service.ts';
import { createApiTokensService } from './api-tokens.service.ts';
import { accountRoutes } from './routes/account.routes.ts';
import { apiTokensRoutes } from './routes/api-tokens.routes.ts';
import { passwordRoutes } from './routes/password.routes.ts';
import { sessionRoutes } from './routes/session.routes.ts';
import { twoFactorRoutes } from './routes/two-factor.routes.ts';
import { createAuthService } from './auth.service.ts';
import { createAdminBootstrap } from './admin-bootstrap.ts';
import { createPasswordService } from './password.service.ts';
import { createPasskeyCeremonies } from './passkeys.service.ts';
import { createPasskeysManagement } from './passkeys-manage.service.ts';
import { passkeysRoutes } from './routes/passkeys.routes.ts';
import { createEmailVerificationService } from './email-verification.service.ts';
import { emailVerificationRoutes } from './routes/email-verification.routes.ts';

export { LoginBody, TwoFactorCodeBody, TwoFactorVerifyBody } from './auth.schemas.ts';
export type { AuthService, SignedIn } from './auth.service.ts';
export { deviceCookieHeader, readDeviceCookie } from './device-cookie.ts';
export { mfaRequiredWire } from './auth.wire.ts';
export type { IssuedTokens } from './session-issuer.ts';
export { PasskeyVerifyBody } from './passkeys.schemas.ts';
export { Passkey } from './passkeys.schemas.ts';
export type { PasskeyCeremonies } from './passkeys.service.ts';
export { passkeyWire } from './passkeys.wire.ts';
export { hasFreshSecondFactor, hasSecondFactor } from '../users/index.ts';

export function createAuthModule(platform: Platform, deps: AuthDeps) {
  const { config, database, tokens, cache, guardCounters: counters, clock, logger, secretBox } = platform;
  const { users } = deps;
  const { guards } = users;
  const secondFactor = createSecondFactor({ twoFactor: users.twoFactor, secretBox, messages: deps.messages });
  const attempts = createSecondFactorAttempts({ cache, counters, db: database.db, messages: deps.messages, clock });
  const devices = createDeviceCookies(secretBox.deriveKey('device-cookie'));
  const service = createAuthService({
    secondFactor,
    attempts,
    devices,
    db: database.db,
    users,
    tokens,
    passwords: platform.passwords,
    cache,
    counters,
    clock,
    logger,
    settings: {
      allowSignup: config.auth.allowSignup,
      signupLimitPerHour: config.auth.signupLimitPerHour,
      refreshTokenTtlDays: config.auth.refreshTokenTtlDays,
    },
    onUserChanged: (userId) => guards.invalidate(userId),
  });

  const passwords = createPasswordService({
    db: database.db,
    users,
    passwords: platform.passwords,
    counters,
    clock,
    onUserChanged: (userId) => guards.invalidate(userId),
  });

  const twoFactor = createTwoFactorService({
    db: database.db,
    users,
    secondFactor,
    attempts,
    passwords: platform.passwords,
    counters,
    clock,
    onUserChanged: (userId) => guards.invalidate(userId),
  });

  const passkeys = createPasskeyCeremonies({
    db: database.db,
    users,
    tokens,
    devices,
    cache,
    counters,
    clock,
    settings: {
      webauthn: config.auth.webauthn,
      refreshTokenTtlDays: config.auth.refreshTokenTtlDays,
      signupLimitPerHour: config.auth.signupLimitPerHour,
    },
    onUserChanged: (userId) => guards.invalidate(userId),
    confirmPassword: twoFactor.confirmPassword,
  });
  const passkeysManagement = createPasskeysManagement({
    db: database.db,
    users,
    clock,
    onUserChanged: (userId) => guards.invalidate(userId),
  });

  const verification = createEmailVerificationService({
    db: database.db,
    users,
    messages: deps.messages,
    counters,
    clock,
    onUserChanged: (userId) => guards.invalidate(userId),
  });

  const bootstrap = createAdminBootstrap({
    db: database.db,
    users,
    service,
    passwords: platform.passwords,
    clock,
    onUserChanged: (userId) => guards.invalidate(userId),
  });

  /** The configured first admin (ADMIN_EMAIL): created, or promoted when ADMIN_PASSWORD is its password; says which. */
  async function bootstrapAdmin(): Promise<void> {
    const { adminEmail: email, adminPassword } = config.auth;
    if (!email || !adminPassword) return;
    const outcome = await bootstrap(email, adminPassword);
    if (outcome === 'created') logger.info({ email }, 'created the configured admin (ADMIN_EMAIL)');
    else if (outcome === 'promoted')
      logger.info(
        { email },
        'made the configured ADMIN_EMAIL, registered earlier with ADMIN_PASSWORD as its password, an admin',
      );
    else if (outcome === 'not_promoted') {
      logger.warn(
        { email },
        'ADMIN_EMAIL is registered already, with another password than ADMIN_PASSWORD (or not active), so it ' +
          `was not made an admin; if it is yours, run: npm run cli -- users:promote --email ${email}`,
      );
    }
  }

  return {
    name: 'auth',
    service,
    twoFactor,
    bootstrapAdmin,
    hooks: { ready: bootstrapAdmin },
    passkeys,
    routes: async (app: FastifyInstance) => {
      // In this order, the OpenAPI document lists the operations as it always has.
      await app.register(sessionRoutes({ service, guards }));
      await app.register(passwordRoutes({ passwords, guards }));
      await app.register(twoFactorRoutes({ service, twoFactor, guards }));
      await app.register(
        apiTokensRoutes({ apiTokens: createApiTokensService({ db: database.db, users, clock }), guards }),
      );
      await app.register(accountRoutes({ service, guards }));
      await app.register(passkeysRoutes({ ceremonies: passkeys, management: passkeysManagement, guards }));
      await app.register(emailVerificationRoutes({ verification, guards }));
    },
  };
}

export type AuthModule = ReturnType<typeof createAuthModule>;

/** What the module contributes to the app and the database (decision 230). */
export { AUTH_MODULE } from './auth.module.ts';
