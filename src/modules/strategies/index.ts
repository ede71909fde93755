// Trading strategies this service keeps (draft → paper → live → retired): an admin read, and the
// paper → live evaluation the strategy-autopilot job calls.
import type { Platform } from '../../platform/platform.ts';
import type { StrategiesDeps } from './strategies.deps.ts';
import { createStrategiesRepository } from './strategies.repository.ts';
import { strategiesRoutes } from './routes/strategies.routes.ts';
import { createStrategiesService } from './strategies.service.ts';

export type { PaperEvaluation, StrategiesService } from './strategies.service.ts';

export function createStrategiesModule(platform: Platform, deps: StrategiesDeps) {
  const { database, clock } = platform;
  const { guards } = deps;
  const service = createStrategiesService({ db: database.db, repo: createStrategiesRepository(database.db), clock });
  return {
    name: 'strategies',
    /** `evaluatePaper(now, limitPerHour)` for the autopilot job; `create()` for seeding until an engine writes them. */
    service,
    routes: strategiesRoutes({ service, guards }),
  };
}
