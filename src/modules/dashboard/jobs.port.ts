// The last run of each scheduled job, as the jobs module reports it. The dashboard depends on this
// port only; app.ts passes the jobs module in (its `lastRuns`). There is no empty default: a
// dashboard built without it would not compile, rather than quietly show that no job ever ran.
import type { JobRun } from '../jobs/index.ts';

export type { JobRun };

export interface JobRunsPort {
  /** One entry per job that ever ran: its latest run. */
  lastRuns(): Promise<JobRun[]>;
}
