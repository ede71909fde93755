// Request and response schemas of /api/scheduled/... (the contract calls the answers untyped objects;
// these are the shapes we answer).
import { Type, type TSchema } from 'typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { SECRET_HEADER } from './secret-guard.ts';

export const JobSecretHeaders = Type.Object({
  [SECRET_HEADER]: Type.String({ description: 'The shared secret, SCHEDULED_JOB_SECRET.' }),
});

/** What a job trigger answers with 200: a run that succeeded, or one skipped because another was in progress. */
export function JobRunAnswer(result: TSchema) {
  return Type.Object(
    {
      job: Type.String({ description: 'The job.' }),
      status: StringEnum(['succeeded', 'skipped'] as const, { description: '`succeeded`, or `skipped` when another run of the job was in progress.' }),
      run_id: Uuid('Id of the recorded run.'),
      trigger: Type.String({ description: '`http` here; `scheduler` for runs of the in-process scheduler.' }),
      started_at: DateTime('When the run started (the `now` the job worked with).'),
      finished_at: DateTime('When it ended.'),
      reason: Type.Optional(Type.String({ description: 'Why it was skipped.' })),
      result: Type.Optional({ ...result, description: 'What the job did (absent when skipped).' }),
    },
    { description: 'A recorded run.' },
  );
}

export const JobFailed = Type.Object(
  {
    detail: Type.String({ description: '`<job> failed: <safe message>`, or why jobs cannot run at all.' }),
    run_id: Type.Optional(Nullable(Uuid('Id of the recorded failed run; null when even the record could not be written.'))),
  },
  { description: 'The job failed, or scheduled jobs are not configured (SCHEDULED_JOB_SECRET unset).' },
);

const LastRun = Type.Object(
  {
    run_id: Uuid('Run id.'),
    status: Type.String({ description: '`running`, `succeeded`, `failed` or `skipped`.' }),
    trigger: Type.String({ description: '`http` or `scheduler`.' }),
    started_at: DateTime('When it started.'),
    finished_at: Nullable(DateTime('When it ended; null while running.')),
  },
  { description: 'The newest run of the job.' },
);

export const JobsHealth = Type.Object({
  status: Type.String({ description: '`ok`.' }),
  scheduler: Type.String({ description: 'SCHEDULER: `off` (an external cron calls the triggers) or `internal`.' }),
  scheduler_running: Type.Boolean({ description: 'Whether the in-process scheduler is running in this instance (only while the server listens).' }),
  secret_configured: Type.Boolean({ description: 'Whether SCHEDULED_JOB_SECRET is set; without it every trigger answers 503.' }),
  jobs: Type.Array(
    Type.Object({
      name: Type.String({ description: 'Job name.' }),
      path: Type.String({ description: 'Its trigger, `POST <path>`.' }),
      cron: Type.String({ description: 'When the in-process scheduler runs it (UTC).' }),
      next_run: Nullable(DateTime('Next scheduled run in this instance; null when the scheduler is not running.')),
      last_run: Nullable(LastRun),
    }),
    { description: 'Every job.' },
  ),
});
