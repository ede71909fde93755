import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import { createControlsService } from './halts.service.ts';
import { createLimitsService } from './limits.service.ts';
import { adminTradingRoutes } from './routes/admin-trading.routes.ts';
import { haltsRoutes } from './routes/halts.routes.ts';
import { limitsRoutes } from './routes/limits.routes.ts';
import type { TradingDeps } from './trading.deps.ts';
import { createTradingRepository } from './trading.repository.ts';

export type {
  Admission,
  BesideJoin,
  CountsJoin,
  HaltListener,
  HaltListenerOptions,
  HaltOutcome,
  HaltTarget,
} from './halts.service.ts';
export type { CheckResult, DailyLossLimits, LimitField, OrderCandidate, OrderCounts } from './limits.domain.ts';
export { dailyLossColumnsText, dailyLossInForceText, dailyLossLimitsOf } from './trading.repository.ts';
export type { TradingStatus } from './halts.domain.ts';

/** How the module is built: the halt listeners' bound (tests shorten it; decision 801). */
export interface TradingOptions {
  haltListenerTimeoutMs?: number;
}

export function createTradingModule(platform: Platform, deps: TradingDeps, options: TradingOptions = {}) {
  const { config, database, clock, logger } = platform;
  const { guards, events } = deps;
  const repo = createTradingRepository(database.db);
  const limits = createLimitsService({ db: database.db, repo, defaults: config.trading.limitDefaults, clock });
  const controls = createControlsService({
    db: database.db,
    repo,
    limits,
    events,
    clock,
    logger,
    listenerTimeoutMs: options.haltListenerTimeoutMs,
  });
  return {
    name: 'trading',
    /**
     * For the orders module: `check(userId, candidate, counts)` before a venue is asked, `status(userId)`
     * (halted: refuse with 423), `onHalt(listener)` (its cancel-all), `noteRealizedLoss(userId, loss)`
     * after each fill (past daily_loss_limit the user is halted).
     */
    controls: {
      admit: controls.admit,
      check: controls.check,
      status: controls.status,
      onHalt: controls.onHalt,
      noteRealizedLoss: controls.noteRealizedLoss,
    },
    routes: async (app: FastifyInstance) => {
      await app.register(limitsRoutes({ limits, guards }));
      await app.register(haltsRoutes({ controls, guards }));
      await app.register(adminTradingRoutes({ limits, controls, guards }));
    },
  };
}

export type TradingModule = ReturnType<typeof createTradingModule>;

/** What the module contributes to the app and the database (decision 230). */
export { TRADING_MODULE } from './trading.module.ts';
