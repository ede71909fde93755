// "Run now" for admins: the console starts a scheduled job as its HTTP trigger does, with the admin's
// token instead of the cron's shared secret (which no browser should hold).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../../../platform/auth/guards.ts';
import { bearerSecurity, errorResponses } from '../../../platform/http/schemas.ts';
import type { JobsModule } from '../../jobs/index.ts';
import { jobParams, JobStarted } from '../console.schemas.ts';

export function consoleJobsRoutes(deps: {
  jobs: Pick<JobsModule, 'startRun' | 'names'>;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { jobs, guards } = deps;
  return async function routes(app) {
    app.post(
      '/api/console/jobs/:job_name/run',
      {
        onRequest: guards.requireAdmin,
        config: { tokenScope: 'refused' },
        schema: {
          tags: ['console'],
          operationId: 'consoleRunJobNow',
          summary: 'Run a scheduled job now (admins)',
          description:
            'Starts the job as POST /api/scheduled/<job> does and answers once the run is recorded: 202 with ' +
            '`running`, or 200 with `skipped` when another run of it is in progress. Its progress and result ' +
            'are at GET /api/scheduled/health and on the dashboard.',
          security: bearerSecurity,
          params: jobParams(jobs.names),
          response: { 200: JobStarted, 202: JobStarted, ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => {
        const { outcome } = await jobs.startRun(request.params.job_name, 'http');
        return reply
          .code(outcome.status === 'running' ? 202 : 200)
          .send({ run_id: outcome.runId, status: outcome.status });
      },
    );
  };
}
