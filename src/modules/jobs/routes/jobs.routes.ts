// POST /api/scheduled/<job> for each job (answered once the run is recorded), GET /api/scheduled/runs/{run_id},
// and the public GET /api/scheduled/health.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Detail, errorResponses, iso } from '../../../platform/http/schemas.ts';
import type { JobRunner, RunOutcome } from '../job-runner.ts';
import {
  IDEMPOTENCY_HEADER,
  JobFailed,
  JobRunAnswer,
  JobRunRecord,
  JobSecretHeaders,
  JobsHealth,
  JobTriggerHeaders,
  RunIdParams,
} from '../jobs.schemas.ts';
import { DATABASE_RETRY_AFTER_SECONDS, type JobsService } from '../jobs.service.ts';
import { jobsHealthWire } from '../jobs.wire.ts';
import { SECRET_HEADER } from '../secret-guard.ts';
import { securityOf } from '../../../platform/http/openapi.ts';

const tags = ['scheduled jobs'];
const SECRET_NOTE =
  ` Requires \`${SECRET_HEADER}\` (= SCHEDULED_JOB_SECRET, compared in constant time): missing → 422, wrong → ` +
  '401, secret not configured → 503.';
const GUARD_NOTE =
  SECRET_NOTE +
  ' Answers at once: **202** with `status: running` and the `run_id` once the run is recorded; the run ' +
  'goes on in the background and `GET /api/scheduled/runs/{run_id}` (or the health route) tells its outcome: ' +
  '`succeeded`, `partial` (some units failed), or `failed` (it threw, or every unit it tried failed). A ' +
  'trigger covered by another run answers **200** with `status: skipped`, the `reason` and `covered_by`: ' +
  'one that arrives while a run is in progress, or within the trigger window after a run started ' +
  "(JOB_TRIGGER_WINDOW_SECONDS, by the database's clock, on one instance or several). With an " +
  '`Idempotency-Key`, the same key of the same job answers the run it answered first, as recorded now (202 ' +
  'while it runs, else 200), and starts nothing. When the run cannot even be recorded (the database is down) ' +
  'it answers 503 `{"detail": "<job> failed: <safe message>", "run_id": null}` with `Retry-After`.';

function toAnswer(outcome: RunOutcome) {
  return {
    job: outcome.job,
    status: outcome.status,
    run_id: outcome.runId!,
    trigger: outcome.trigger,
    started_at: iso(outcome.startedAt)!,
    finished_at: iso(outcome.finishedAt),
    units: outcome.status === 'running' || outcome.status === 'skipped' ? null : outcome.units,
    error: outcome.status === 'failed' ? outcome.error : null,
    ...(outcome.status === 'skipped' ? { reason: outcome.reason, covered_by: outcome.coveredBy } : {}),
    ...('result' in outcome && outcome.result ? { result: outcome.result } : {}),
  };
}

/** `rotate-api-keys` → `runRotateApiKeys`: the client method that triggers the job. */
const operationIdOf = (job: string) =>
  `run${job.replace(/(^|[^a-z0-9])([a-z0-9])/g, (_m, _separator, letter: string) => letter.toUpperCase())}`;

export function jobsRoutes(deps: {
  runner: JobRunner;
  service: JobsService;
  guard: (request: FastifyRequest) => Promise<void>;
}): FastifyPluginAsyncTypebox {
  const { runner, service, guard } = deps;
  return async function routes(app) {
    for (const job of runner.jobs) {
      const answer = JobRunAnswer(job.result, `${operationIdOf(job.name).slice('run'.length)}Run`);
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
            headers: JobTriggerHeaders,
            response: { 200: answer, 202: answer, 401: Detail, 503: JobFailed, ...errorResponses() },
          },
        },
        async (request, reply) => {
          const { outcome } = await runner.start(job.name, 'http', {
            idempotencyKey: request.headers[IDEMPOTENCY_HEADER],
          });
          if (outcome.runId === null) {
            // Nothing was recorded, so nothing ran: the scheduler should try again shortly (decision 953).
            return reply
              .code(503)
              .header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS))
              .send({
                detail: `${job.name} failed: ${
                  outcome.status === 'failed' ? outcome.error : 'the run could ' + 'not be recorded'
                }`,
                run_id: null,
              });
          }
          return reply.code(outcome.status === 'running' ? 202 : 200).send(toAnswer(outcome));
        },
      );
    }

    app.get(
      '/api/scheduled/runs/:run_id',
      {
        preHandler: guard,
        schema: {
          tags,
          operationId: 'getScheduledJobRun',
          security: securityOf('scheduledJobSecret'),
          summary: 'One run of a scheduled job',
          description:
            'The run a trigger answered with (`run_id`): its status (`running` until it ends), when it ' +
            'started and ended, its units (total, succeeded, failed) for a job that works unit by unit, the ' +
            "error of a failed run, and the job's result." +
            SECRET_NOTE +
            ' An unknown run is 404; a run id that is not a UUID is 422.',
          headers: JobSecretHeaders,
          params: RunIdParams,
          response: { 200: JobRunRecord, 401: Detail, 404: Detail, 503: Detail, ...errorResponses() },
        },
      },
      async (request) => toAnswer(await service.run(request.params.run_id)),
    );

    app.get(
      '/api/scheduled/health',
      {
        schema: {
          tags,
          operationId: 'getScheduledJobsHealth',
          summary: 'Scheduled jobs: configuration and last runs',
          description:
            'Public. The scheduler mode, whether the secret is configured (a boolean, never the ' +
            'value), and each job with its cron and its newest run (status and times only; failure ' +
            'messages are on the dashboard, not here).',
          response: { 200: JobsHealth, 503: Detail },
        },
      },
      async () => jobsHealthWire(await service.health()),
    );
  };
}
