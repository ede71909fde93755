// Trading strategies this service keeps (draft → paper → live → retired): an admin read, the paper →
// live evaluation the strategy-autopilot job calls, and users' own strategies, whose figures the
// orders module fills from their paper orders' fills (`userStrategies.recordFills`).
import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { StrategiesDeps } from './strategies.deps.ts';
import { createStrategiesRepository } from './strategies.repository.ts';
import { strategiesRoutes } from './routes/strategies.routes.ts';
import { userStrategiesRoutes } from './routes/user-strategies.routes.ts';
import { createStrategiesService } from './strategies.service.ts';
import { createUserStrategiesService } from './user-strategies.service.ts';
import { bindJob } from '../../platform/jobs.ts';
import { strategyAutopilotJob } from './strategy-autopilot.job.ts';

export type { PaperEvaluation, StrategiesService } from './strategies.service.ts';
export type { StrategyFill } from './user-strategies.service.ts';

export function createStrategiesModule(platform: Platform, deps: StrategiesDeps) {
  const { config, database, clock, logger } = platform;
  const { guards } = deps;
  const repo = createStrategiesRepository(database.db);
  const service = createStrategiesService({ db: database.db, repo, clock });
  const mine = createUserStrategiesService({ db: database.db, repo, clock, platformLimits: deps.platformLimits });
  return {
    name: 'strategies',
    /** `create()` for seeding platform strategies. */
    service,
    /**
     * For the orders module: `isOwnedBy(strategyId, userId)` before an order names a strategy, and
     * `recordFills(strategyId, fills)` after each fill of a paper order that names one (stored once per
     * trade id; the new ones are folded into the strategy's figures, decision 850).
     */
    userStrategies: { isOwnedBy: mine.isOwnedBy, recordFills: mine.recordFills },
    async routes(app: FastifyInstance) {
      await app.register(strategiesRoutes({ service, guards }));
      await app.register(userStrategiesRoutes({ service: mine, guards }));
    },
    jobs: [
      bindJob(strategyAutopilotJob, {
        intel: deps.intel,
        candles: deps.candles,
        strategies: service,
        platformLimits: deps.platformLimits,
        liveTrading: config.orders.liveTrading,
        logger,
      }),
    ],
  };
}

export type StrategiesModule = ReturnType<typeof createStrategiesModule>;

/** What the module contributes to the app and the database (decision 230). */
export { STRATEGIES_MODULE } from './strategies.module.ts';
