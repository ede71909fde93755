// The scheduled jobs by name, and the states of their runs. Light on purpose: config reads the
// names to check SCHEDULER_CRONS without loading any job.

export const JOB_NAMES = [
  'rotate-api-keys',
  'cleanup-grace-periods',
  'cleanup-device-sessions',
  'cleanup-expired-tokens',
  'strategy-autopilot/evaluate',
  'sync-accounts',
] as const;
export type JobName = (typeof JOB_NAMES)[number];

export const RUN_TRIGGERS = ['http', 'scheduler'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/** `running` until it ends; `skipped` when another run held the job's lock. */
export const RUN_STATUSES = ['running', 'succeeded', 'failed', 'skipped'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The latest finished run of a job, as the dashboard shows it. */
export interface JobRun {
  job: JobName;
  status: Exclude<RunStatus, 'running'>;
  trigger: RunTrigger;
  startedAt: Date;
  finishedAt: Date | null;
  error: string | null;
}
