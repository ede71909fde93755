// POST /api/scheduled/<job> for each job, and the public GET /api/scheduled/health.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Detail, errorResponses, iso } from '../../../platform/http/schemas.ts';
import type { JobRunner, RunOutcome } from '../job-runner.ts';
import { JobFailed, JobRunAnswer, JobSecretHeaders, JobsHealth } from '../jobs.schemas.ts';
import type { JobsService } from '../jobs.service.ts';
import { SECRET_HEADER } from '../secret-guard.ts';
import { securityOf } from '../../../platform/http/openapi.ts';

const tags = ['scheduled jobs'];
const GUARD_NOTE =
  ` Requires \`${SECRET_HEADER}\` (= SCHEDULED_JOB_SECRET, compared in constant time): missing → 422, wrong → 401, secret not configured → 503.` +
  ' Two overlapping runs never both run, on one instance or several sharing the database: the second answers 200 with `status: skipped`.' +
  ' A failure (a dependency down, an unexpected error) is recorded and answered 503 `{"detail": "<job> failed: <safe message>", "run_id"}`' +
  ' so that an external cron sees a non-2xx; the cause is only in the log.';

export function toAnswer(outcome: Exclude<RunOutcome, { status: 'failed' }>) {
  return {
    job: outcome.job,
    status: outcome.status,
    run_id: outcome.runId!,
    trigger: outcome.trigger,
    started_at: iso(outcome.startedAt)!,
    finished_at: iso(outcome.finishedAt)!,
    ...(outcome.status === 'skipped' ? { reason: outcome.reason } : { result: outcome.result }),
  };
}

/** `rotate-api-keys` → `runRotateApiKeys`: the client method that triggers the job. */
const operationIdOf = (job: string) => `run${job.replace(/(^|[^a-z0-9])([a-z0-9])/g, (_m, _separator, letter: string) => letter.toUpperCase())}`;

export function jobsRoutes(deps: { runner: JobRunner; service: JobsService; guard: (request: FastifyRequest) => Promise<void> }): FastifyPluginAsyncTypebox {
  const { runner, service, guard } = deps;
  return async function routes(app) {
    for (const job of runner.jobs) {
      app.post(
        `/api/scheduled/${job.name}`,
        {
          // After validation, so that a missing header is the contract's 422.
          preHandler: guard,
          schema: {
            tags,
            operationId: operationIdOf(job.name),
            security: securityOf('scheduledJobSecret'),
            summary: job.summary,
            description: job.description + GUARD_NOTE,
            headers: JobSecretHeaders,
            response: { 200: JobRunAnswer(job.result), 401: Detail, 503: JobFailed, ...errorResponses() },
          },
        },
        async (_request, reply) => {
          const outcome = await runner.run(job.name, 'http');
          if (outcome.status === 'failed') return reply.code(503).send({ detail: `${job.name} failed: ${outcome.error}`, run_id: outcome.runId });
          return toAnswer(outcome);
        },
      );
    }

    app.get(
      '/api/scheduled/health',
      {
        schema: {
          tags,
          operationId: 'getScheduledJobsHealth',
          summary: 'Scheduled jobs: configuration and last runs',
          description:
            'Public. The scheduler mode, whether the secret is configured (a boolean, never the value), and each job with its cron ' +
            'and its newest run (status and times only; failure messages are on the dashboard, not here).',
          response: { 200: JobsHealth, 503: Detail },
        },
      },
      async () => service.health(),
    );
  };
}
