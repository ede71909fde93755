// Shared setup of the dashboard tests: a dashboard wired from the real modules of a test app's
// platform, with a jobs port of the test's choosing, served under a prefix next to the app's own.
import type { FastifyInstance } from 'fastify';
import { createModules, SERVICE_VERSION } from '../../../src/app.ts';
import { createDashboardModule, type JobRunsPort } from '../../../src/modules/dashboard/index.ts';
import type { Platform } from '../../../src/platform/platform.ts';
import type { TestApp } from '../../helpers/test-app.ts';

export const WIRED = '/wired';

/** Registers a second dashboard, with `jobs`, at `${WIRED}/api/v1/dashboard/...` (for buildTestApp's `routes`). */
export function wiredDashboard(jobs: JobRunsPort) {
  return async (app: FastifyInstance, platform: Platform) => {
    const modules = createModules(platform);
    const dashboard = createDashboardModule(platform, {
      version: SERVICE_VERSION,
      users: modules.admin.users,
      sessions: modules.auth.service,
      tasks: modules.commandCenter.tasks,
      agents: modules.commandCenter.agents,
      webhooks: modules.webhooks.service,
      notifications: modules.notifications,
      market: modules.market,
      tracker: modules.tracker.service,
      exchanges: modules.exchange.venueStatus,
      jobs,
    });
    await app.register(dashboard.routes, { prefix: WIRED });
  };
}

/** Every string value anywhere in a JSON body, for "this secret appears nowhere" checks. */
export function assertNoSecrets(body: string, secrets: readonly string[], where: string): void {
  for (const secret of secrets) {
    if (body.includes(secret)) throw new Error(`${where} contains a secret (${secret.slice(0, 3)}…)`);
  }
}

export const INTEGRATIONS_ROUTE = '/api/v1/dashboard/integrations';
/** The Linear key of the integrations tests: a secret no answer may show. */
export const LINEAR_KEY = 'lin_api_dashLinearKeySecret0123456789';

/** The integrations answer; the route needs no authentication. */
export const getIntegrations = (t: TestApp) => t.app.inject({ method: 'GET', url: INTEGRATIONS_ROUTE });
