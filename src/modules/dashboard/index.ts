// The dashboard (public, GET /api/v1/dashboard/...): composes what the other modules' services
// report; it owns no table. Its inputs are the narrow deps of DashboardDeps, wired in app.ts.
import type { Platform } from '../../platform/platform.ts';
import { createAgentsService } from './agents.service.ts';
import type { DashboardDeps } from './dashboard.deps.ts';
import { dashboardRoutes } from './routes/dashboard.routes.ts';
import { createIntegrationsService } from './integrations.service.ts';
import { createOverviewService } from './overview.service.ts';
import { createProbeMemo } from './probe-memo.ts';

export type { DashboardDeps } from './dashboard.deps.ts';
export type { JobRun, JobRunsPort } from './jobs.port.ts';
export { DASHBOARD_REUSE_MS, OVERVIEW_REUSE_MS } from './overview.service.ts';

export function createDashboardModule(platform: Platform, deps: DashboardDeps) {
  const { config, database, cache, clock, logger, outbox } = platform;
  const overview = createOverviewService({
    ...deps,
    database,
    cache,
    outbox,
    clock,
    logger,
    startedAt: clock.now(),
  });
  const agents = createAgentsService({ agents: deps.agents, clock });
  const integrations = createIntegrationsService({
    ...deps,
    cache,
    clock,
    probes: createProbeMemo({ clock }),
    trackerBackend: config.tracker.backend,
  });

  return {
    name: 'dashboard',
    routes: dashboardRoutes({ overview, agents, integrations }),
  };
}

/** What the module contributes to the app and the database (decision 230). */
export { DASHBOARD_MODULE } from './dashboard.module.ts';
