import type { FastifyInstance } from 'fastify';
import { auditTrailOf } from '../../platform/audit.ts';
import type { Platform } from '../../platform/platform.ts';
import type { AdminDeps } from './admin.deps.ts';
import { createPlatformLimitsRepository, type LimitValues } from './platform-limits.repository.ts';
import { createPlatformLimitsService } from './platform-limits.service.ts';
import { platformLimitsRoutes } from './routes/platform-limits.routes.ts';
import { statsRoutes } from './routes/stats.routes.ts';
import { userActionsRoutes } from './routes/user-actions.routes.ts';
import { usersRoutes } from './routes/users.routes.ts';
import { createUserActionsService } from './user-actions.service.ts';
import { createExportsRepository } from './exports.repository.ts';
import { createUsersService } from './users.service.ts';
import { bindJob } from '../../platform/jobs.ts';
import { cleanupGracePeriodsJob } from './cleanup-grace-periods.job.ts';

export type { TradingSummary, TradingSummaryPort } from './trading-summary.port.ts';
export type { LimitValues } from './platform-limits.repository.ts';

export function createAdminModule(platform: Platform, deps: AdminDeps) {
  const { database, clock, config } = platform;
  const db = database.db;
  const { guards } = deps.users;
  const onUserChanged = (userId: string) => guards.invalidate(userId);

  const users = createUsersService({
    db,
    users: deps.users,
    auditTrail: (userId, limit) => auditTrailOf(userId, limit, db),
    revenueByCurrency: deps.revenueByCurrency,
    clock,
    trading: deps.trading,
    settlementCurrency: config.billing.settlementCurrency,
    onUserChanged,
  });
  const exports = createExportsRepository(db);
  const userActions = createUserActionsService({
    db,
    users: deps.users,
    exports,
    presenter: users,
    messages: deps.messages,
    passwords: platform.passwords,
    clock,
    onUserChanged,
  });
  const limits = createPlatformLimitsService({ db, repo: createPlatformLimitsRepository(db), clock });

  return {
    name: 'admin',
    users,
    userActions,
    /** The per-hour limits in force (stored values, or the defaults), for the modules enforcing them. */
    getPlatformLimits: (): Promise<LimitValues> => limits.current(),
    async routes(app: FastifyInstance) {
      await app.register(usersRoutes({ service: users, guards }));
      await app.register(userActionsRoutes({ service: userActions, guards }));
      await app.register(statsRoutes({ service: users, guards }));
      await app.register(platformLimitsRoutes({ service: limits, guards }));
    },
    jobs: [bindJob(cleanupGracePeriodsJob, { users })],
  };
}

export type AdminModule = ReturnType<typeof createAdminModule>;

/** What the module contributes to the app and the database (decision 230). */
export { ADMIN_MODULE } from './admin.module.ts';
