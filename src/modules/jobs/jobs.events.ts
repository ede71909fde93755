// The account-stream event the jobs module publishes when a run ends, with the schema of its data,
// declared here once; its module's declaration lists it.
import { Type } from 'typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { defineStreamEvent } from '../../platform/stream-events.ts';

const jobFinished = defineStreamEvent({
  type: 'job.finished',
  audience: 'admins',
  title: 'JobFinishedData',
  description: "Admins only: a scheduled job's run ended.",
  data: Type.Object({
    job: Type.String({ description: 'Job name.' }),
    run_id: Nullable(Uuid('The run record; null when it could not be recorded.')),
    trigger: Type.String({ description: '`http` or `scheduler`.' }),
    status: StringEnum(['succeeded', 'partial', 'failed', 'skipped'] as const),
    started_at: DateTime(),
    finished_at: DateTime(),
  }),
});

export const JOBS_EVENTS = [jobFinished] as const;
