// The console in the browser (issue 25, decision 160): its built files, its cookie session around
// the auth module, and the admin's "run now" for scheduled jobs.
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import type { Guards } from '../../platform/auth/guards.ts';
import type { Platform } from '../../platform/platform.ts';
import { PROJECT_ROOT } from '../../platform/project-root.ts';
import type { AuthModule } from '../auth/index.ts';
import type { JobsModule } from '../jobs/index.ts';
import { createConsoleFiles } from './console-files.ts';
import { consoleAppRoutes } from './routes/console-app.routes.ts';
import { consoleJobsRoutes } from './routes/console-jobs.routes.ts';
import { consoleSessionRoutes } from './routes/console-session.routes.ts';

interface ConsoleModuleDeps {
  guards: Guards;
  auth: Pick<AuthModule, 'service'>;
  jobs: Pick<JobsModule, 'startRun'>;
  /** Where the build wrote the console (dist/console by default). */
  dir?: string;
}

export function createConsoleModule(platform: Platform, deps: ConsoleModuleDeps) {
  const files = createConsoleFiles(deps.dir ?? path.join(PROJECT_ROOT, 'dist', 'console'));
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(consoleAppRoutes({ files }));
    await app.register(
      consoleSessionRoutes({
        auth: deps.auth.service,
        guards: deps.guards,
        refreshTtlSeconds: platform.config.auth.refreshTokenTtlDays * 86_400,
      }),
    );
    await app.register(consoleJobsRoutes({ jobs: deps.jobs, guards: deps.guards }));
  };
  return { name: 'console', routes };
}
