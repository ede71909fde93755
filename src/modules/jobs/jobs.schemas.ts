// Request and response schemas of /api/scheduled/... (the contract calls the answers untyped objects;
// these are the shapes we answer).
import { Type, type TSchema } from 'typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { IDEMPOTENCY_KEY_MAX, RUN_STATUSES } from './jobs.domain.ts';
import { SECRET_HEADER } from './secret-guard.ts';

export const JobSecretHeaders = Type.Object({
  [SECRET_HEADER]: Type.String({ description: 'The shared secret, SCHEDULED_JOB_SECRET.' }),
});

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** The trigger's headers: the secret, and an optional Idempotency-Key (docs/decisions/125). */
export const JobTriggerHeaders = Type.Object({
  ...JobSecretHeaders.properties,
  [IDEMPOTENCY_HEADER]: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_MAX,
      pattern: '^[\\x20-\\x7E]+$',
      description:
        `Optional, 1 to ${IDEMPOTENCY_KEY_MAX} printable ASCII characters, for a scheduler that ` +
        'sends one: the same key for the same job answers the same run again, whatever the time, ' +
        'and never starts a second one.',
    }),
  ),
});

export const RunIdParams = Type.Object({ run_id: Uuid('Run id (a UUID), as a trigger answered it.') });

const STATUS_NOTE =
  '`running` (answered 202 by the trigger that started it), `succeeded`, `partial` (some of its units ' +
  'failed), `failed` (it threw, every unit it tried failed, or the service shut down during it), or `skipped` ' +
  '(another run covered the trigger).';

const RunUnits = Type.Object(
  {
    total: Type.Integer({ description: 'Units looked at (e.g. credentials).' }),
    succeeded: Type.Integer({ description: 'Units done.' }),
    failed: Type.Integer({
      description: 'Units that failed; units neither done nor failed were deferred to a later run.',
    }),
  },
  {
    description:
      'For a job that works unit by unit (sync-accounts: credentials; strategy-autopilot: intel events), ' +
      'once it ended; null otherwise.',
  },
);

function runFields(result: TSchema) {
  return {
    job: Type.String({ description: 'The job.' }),
    status: StringEnum(RUN_STATUSES, { description: STATUS_NOTE }),
    run_id: Uuid('Id of the recorded run; `GET /api/scheduled/runs/{run_id}` reads it.'),
    trigger: Type.String({ description: '`http`, or `scheduler` for runs of the in-process scheduler.' }),
    started_at: DateTime('When the run started (the `now` the job worked with); when a skipped trigger arrived.'),
    finished_at: Nullable(DateTime('When it ended; null while running.')),
    units: Nullable(RunUnits),
    error: Nullable(
      Type.String({ description: 'Why it failed (a safe message; the cause is in the service log); null otherwise.' }),
    ),
    reason: Type.Optional(Type.String({ description: 'Why it was skipped (naming the run that covered it).' })),
    covered_by: Type.Optional(Nullable(Uuid("When skipped: the run that did this trigger's work."))),
    result: Type.Optional({
      ...result,
      description: 'What the job did, once it ended (absent while running, when skipped, or when it threw).',
    }),
  };
}

/** What a job trigger answers: 202 with the run it started (`running`), or 200 with a skip or the run its key names. */
/** A job's trigger answer; titled, so that its 200 and 202 are one schema of the document's components. */
export function JobRunAnswer(result: TSchema, title: string) {
  return Type.Object(runFields(result), { title, description: 'A recorded run.' });
}

/** A run as `GET /api/scheduled/runs/{run_id}` answers it. */
export const JobRunRecord = Type.Object(runFields(Type.Object({}, { additionalProperties: true })), {
  description: "A recorded run; `result` has the schema of the job's trigger answer.",
});

export const JobFailed = Type.Object(
  {
    detail: Type.String({ description: '`<job> failed: <safe message>`, or why jobs cannot run at all.' }),
    run_id: Type.Optional(Nullable(Uuid('Null: not even the run record could be written.'))),
  },
  {
    description:
      'The run could not be started or recorded (the database is down), or scheduled jobs are not ' +
      'configured (SCHEDULED_JOB_SECRET unset).',
  },
);

const LastRun = Type.Object(
  {
    run_id: Uuid('Run id.'),
    status: Type.String({ description: '`running`, `succeeded`, `partial` or `failed`.' }),
    trigger: Type.String({ description: '`http` or `scheduler`.' }),
    started_at: DateTime('When it started.'),
    finished_at: Nullable(DateTime('When it ended; null while running.')),
    units: Nullable(RunUnits),
  },
  { description: 'The newest run of the job (skipped triggers aside: they did no work).' },
);

export const JobsHealth = Type.Object({
  status: Type.String({ description: '`ok`.' }),
  scheduler: Type.String({ description: 'SCHEDULER: `off` (an external cron calls the triggers) or `internal`.' }),
  scheduler_running: Type.Boolean({
    description: 'Whether the in-process scheduler is running in this instance (only while the server listens).',
  }),
  secret_configured: Type.Boolean({
    description: 'Whether SCHEDULED_JOB_SECRET is set; without it every trigger answers 503.',
  }),
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
