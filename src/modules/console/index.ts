// The console in the browser (issue 25, decision 160): its built files, its cookie session around
// the auth module, and the admin's "run now" for scheduled jobs.
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { ConsoleDeps } from './console.deps.ts';
import { PROJECT_ROOT } from '../../platform/project-root.ts';
import { createConsoleFiles } from './console-files.ts';
import { consoleAppRoutes } from './routes/console-app.routes.ts';
import { consoleJobsRoutes } from './routes/console-jobs.routes.ts';
import { consoleSessionRoutes } from './routes/console-session.routes.ts';

export function createConsoleModule(platform: Platform, deps: ConsoleDeps) {
  const files = createConsoleFiles(deps.dir ?? path.join(PROJECT_ROOT, 'dist', 'console'));
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(consoleAppRoutes({ files }));
    await app.register(
      consoleSessionRoutes({
        auth: deps.auth.service,
        passkeys: deps.auth.passkeys,
        guards: deps.guards,
        refreshTtlSeconds: platform.config.auth.refreshTokenTtlDays * 86_400,
      }),
    );
    await app.register(consoleJobsRoutes({ jobs: deps.jobs, guards: deps.guards }));
  };
  return { name: 'console', routes };
}

/** What the module contributes to the app and the database (decision 230). */
export { CONSOLE_MODULE } from './console.module.ts';
