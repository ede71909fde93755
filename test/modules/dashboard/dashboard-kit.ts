// Shared setup of the dashboard tests: a dashboard wired from the real modules of a test app's
// platform, with a jobs port of the test's choosing, served under a prefix next to the app's own.
import type { FastifyInstance } from 'fastify';
import { SERVICE_VERSION } from '../../../src/app.ts';
import { createAdminModule } from '../../../src/modules/admin/index.ts';
import { createAuthModule } from '../../../src/modules/auth/index.ts';
import { createCommandCenterModule } from '../../../src/modules/command-center/index.ts';
import { createDashboardModule, type JobRunsPort } from '../../../src/modules/dashboard/index.ts';
import { createExchangeModule } from '../../../src/modules/exchange/index.ts';
import { createMarketModule } from '../../../src/modules/market/index.ts';
import { createNotificationsModule } from '../../../src/modules/notifications/index.ts';
import { createTrackerModule } from '../../../src/modules/tracker/index.ts';
import { createWebhooksModule } from '../../../src/modules/webhooks/index.ts';
import type { Platform } from '../../../src/platform/platform.ts';

export const WIRED = '/wired';

/** Registers a second dashboard, with `jobs`, at `${WIRED}/api/v1/dashboard/...` (for buildTestApp's `routes`). */
export function wiredDashboard(jobs: JobRunsPort) {
  return async (app: FastifyInstance, platform: Platform) => {
    const commandCenter = createCommandCenterModule(platform);
    const tracker = createTrackerModule(platform);
    const dashboard = createDashboardModule(platform, {
      version: SERVICE_VERSION,
      users: createAdminModule(platform).users,
      sessions: createAuthModule(platform).service,
      tasks: commandCenter.tasks,
      agents: commandCenter.agents,
      webhooks: createWebhooksModule(platform).service,
      notifications: createNotificationsModule(platform),
      market: createMarketModule(platform),
      tracker: tracker.service,
      exchanges: createExchangeModule(platform).venueStatus,
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
