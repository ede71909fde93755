import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { CommandCenterDeps } from './command-center.deps.ts';
import { createAgentActivityRepository } from './agent-activity.repository.ts';
import { createAgentsService, createIntelService } from './feeds.service.ts';
import { createIntelRepository } from './intel.repository.ts';
import { feedRoutes } from './routes/feeds.routes.ts';
import { taskRoutes } from './routes/tasks.routes.ts';
import { createTasksRepository } from './tasks.repository.ts';
import { createTasksService } from './tasks.service.ts';

export function createCommandCenterModule(platform: Platform, deps: CommandCenterDeps) {
  const { config, database, clock } = platform;
  const { guards } = deps;
  const taskRepo = createTasksRepository(database.db);
  const tasks = createTasksService({ db: database.db, repo: taskRepo, clock, defaultRepo: config.projectRepo });
  const intel = createIntelService({ db: database.db, repo: createIntelRepository(database.db), clock });
  const agents = createAgentsService({
    db: database.db,
    repo: createAgentActivityRepository(database.db),
    tasks: taskRepo,
    clock,
  });

  return {
    name: 'command-center',
    /** Tasks; `countsByStatus()` is for the dashboard. */
    tasks,
    /** Intel feed; `listMaturedUnscored(now, limit)` and `recordOutcome(id, pct)` are for the scoring job. */
    intel,
    /** Agent activity; `summaries(now)` is for the dashboard. */
    agents,
    async routes(app: FastifyInstance) {
      await app.register(taskRoutes({ service: tasks, guards }));
      await app.register(feedRoutes({ intel, agents, guards }));
    },
  };
}

export type CommandCenterModule = ReturnType<typeof createCommandCenterModule>;

/** What the module contributes to the app and the database (decision 230). */
export { COMMAND_CENTER_MODULE } from './command-center.module.ts';
