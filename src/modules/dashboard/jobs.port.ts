// The last run of each scheduled job, as the jobs module reports it. The dashboard depends on this
// shape only; app.ts passes the jobs module in (its `lastRuns`). There is no empty default: a
// dashboard built without it would not compile, rather than quietly show that no job ever ran.

export interface JobRun {
  job: string;
  status: 'succeeded' | 'failed' | 'skipped';
  trigger: 'http' | 'scheduler';
  startedAt: Date;
  finishedAt: Date | null;
  error: string | null;
}

export interface JobRunsPort {
  /** One entry per job that ever ran: its latest run. */
  lastRuns(): Promise<JobRun[]>;
}
