import { AppError } from '../../platform/http/errors.ts';
import type { Platform } from '../../platform/platform.ts';
import { createAuthRepository } from './auth.repository.ts';
import { authRoutes } from './auth.routes.ts';
import { createAuthService } from './auth.service.ts';

export function createAuthModule(platform: Platform) {
  const { config, database, tokens, cache, clock, logger, guards } = platform;
  const repo = createAuthRepository(database.db);
  const service = createAuthService({
    db: database.db,
    repo,
    tokens,
    cache,
    clock,
    logger,
    settings: {
      allowSignup: config.auth.allowSignup,
      refreshTokenTtlDays: config.auth.refreshTokenTtlDays,
      sessionIdleDays: config.auth.sessionIdleDays,
    },
    onUserChanged: (userId) => guards.invalidate(userId),
    onAllUsersChanged: () => guards.invalidate(),
  });

  return {
    name: 'auth',
    service,
    routes: authRoutes(service, guards),
    /** Creates the configured first admin if no user has that e-mail yet. */
    async bootstrapAdmin(): Promise<void> {
      const { adminEmail, adminPassword } = config.auth;
      if (!adminEmail || !adminPassword) return;
      if (await repo.findUserByEmail(adminEmail)) return;
      try {
        await service.createUser({ email: adminEmail, password: adminPassword, role: 'admin' }, 'system');
        logger.info({ email: adminEmail }, 'created the configured admin user');
      } catch (error) {
        // Another instance starting at the same moment created it first: that is the goal reached.
        if (error instanceof AppError && error.code === 'conflict') return;
        throw error;
      }
    },
  };
}

export type AuthModule = ReturnType<typeof createAuthModule>;
