import type { Platform } from '../../platform/platform.ts';
import type { TrackerDeps } from './tracker.deps.ts';
import { createLinearClient } from './adapters/linear-client.ts';
import { createLinearTrackerBackend } from './adapters/linear-tracker-backend.ts';
import { createLocalTrackerBackend } from './adapters/local-tracker-backend.ts';
import type { TrackerBackend } from './adapters/tracker-backend.ts';
import { trackerRoutes } from './routes/tracker.routes.ts';
import { createTrackerService, type AgentFilingTimes } from './tracker.service.ts';
import { createIssueIntentsRepository } from './issue-intents.repository.ts';
import { bindJob } from '../../platform/jobs.ts';
import { settleIssueIntentsJob } from './settle-issue-intents.job.ts';

export type { AgentFilingTimes } from './tracker.service.ts';

export function createTrackerModule(
  platform: Platform,
  deps: TrackerDeps,
  options: { agentFiling?: AgentFilingTimes } = {},
) {
  const { config, database, cache, clock, logger } = platform;
  const { tracker } = config;

  // The one place the backend is chosen.
  let backend: TrackerBackend;
  let defaultTeamId: string | undefined;
  let seed = async () => {};
  if (tracker.backend === 'linear') {
    const client = createLinearClient({
      apiUrl: tracker.apiUrl,
      apiKey: tracker.apiKey!,
      fetch: platform.fetch,
      timeoutMs: tracker.timeoutMs,
      clock,
      cache,
    });
    backend = createLinearTrackerBackend({ client, cache, db: database.db });
    defaultTeamId = tracker.defaultTeamId;
  } else {
    const local = createLocalTrackerBackend({
      database,
      users: deps.users.accounts,
      clock,
      logger,
      defaultTeamId: tracker.defaultTeamId,
    });
    backend = local;
    defaultTeamId = local.defaultTeamId;
    seed = () => local.seed();
  }

  const service = createTrackerService({
    backend,
    cache,
    clock,
    logger,
    messages: deps.messages,
    intents: createIssueIntentsRepository(database.db),
    settings: { defaultTeamId, agentFiling: options.agentFiling },
  });
  return {
    name: 'tracker',
    service,
    routes: trackerRoutes({ service, guards: deps.users.guards }),
    jobs: [bindJob(settleIssueIntentsJob, { tracker: service })],
    /** Seeds the local tracker's default team and workflow states (a no-op with Linear). */
    init: seed,
    hooks: { ready: seed },
  };
}

export type TrackerModule = ReturnType<typeof createTrackerModule>;

/** What the module contributes to the app and the database (decision 230). */
export { TRACKER_MODULE } from './tracker.module.ts';
