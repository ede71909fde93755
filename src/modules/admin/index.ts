import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import { createPlatformLimitsRepository, type LimitValues } from './platform-limits.repository.ts';
import { createPlatformLimitsService } from './platform-limits.service.ts';
import { platformLimitsRoutes } from './routes/platform-limits.routes.ts';
import { statsRoutes } from './routes/stats.routes.ts';
import { userActionsRoutes } from './routes/user-actions.routes.ts';
import { usersRoutes } from './routes/users.routes.ts';
import { noTradingSummary, type TradingSummaryPort } from './trading-summary.port.ts';
import { createUserActionsService } from './user-actions.service.ts';
import { createUsersRepository } from './users.repository.ts';
import { createUsersService } from './users.service.ts';

export type { TradingSummary, TradingSummaryPort } from './trading-summary.port.ts';
export type { LimitValues } from './platform-limits.repository.ts';

export interface AdminModuleDeps {
  /** Trade counts and balances per user, from the exchange module; 0 and 0 when absent. */
  trading?: TradingSummaryPort;
}

export function createAdminModule(platform: Platform, deps: AdminModuleDeps = {}) {
  const { database, clock, guards, secretBox, config } = platform;
  const db = database.db;
  const onUserChanged = (userId: string) => guards.invalidate(userId);

  const usersRepo = createUsersRepository(db);
  const users = createUsersService({
    db,
    repo: usersRepo,
    clock,
    trading: deps.trading ?? noTradingSummary,
    settlementCurrency: config.billing.settlementCurrency,
    onUserChanged,
  });
  const userActions = createUserActionsService({ db, repo: usersRepo, users, clock, secretBox, onUserChanged });
  const limits = createPlatformLimitsService({ db, repo: createPlatformLimitsRepository(db), clock });

  return {
    name: 'admin',
    users,
    /** The per-hour limits in force (stored values, or the defaults), for the modules enforcing them. */
    getPlatformLimits: (): Promise<LimitValues> => limits.current(),
    async routes(app: FastifyInstance) {
      await app.register(usersRoutes(users, guards));
      await app.register(userActionsRoutes(userActions, guards));
      await app.register(statsRoutes(users, guards));
      await app.register(platformLimitsRoutes(limits, guards));
    },
  };
}

export type AdminModule = ReturnType<typeof createAdminModule>;
