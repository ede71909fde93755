// The states of a job's runs. The jobs are the modules' (each declares and binds its own): here a job
// is known by its name.
import type { RunUnits } from '../../platform/jobs.ts';

export type { RunUnits };
export type JobName = string;

export const RUN_TRIGGERS = ['http', 'scheduler'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/**
 * `running` until it ends; then `succeeded`, `partial` (some of its units failed), or `failed` (it threw,
 * or every unit it tried failed); `skipped` when another run covered the trigger (docs/decisions/126).
 */
export const RUN_STATUSES = ['running', 'succeeded', 'partial', 'failed', 'skipped'] as const;
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

/**
 * The status of a run that returned (docs/decisions/126): failed when units failed and none
 * succeeded, partial when some failed, else succeeded. Units neither (deferred) count for nothing.
 */
export function statusOfUnits(units: RunUnits | null): 'succeeded' | 'partial' | 'failed' {
  if (!units || units.failed === 0) return 'succeeded';
  return units.succeeded === 0 ? 'failed' : 'partial';
}

/** The longest Idempotency-Key a trigger may carry. */
export const IDEMPOTENCY_KEY_MAX = 200;
