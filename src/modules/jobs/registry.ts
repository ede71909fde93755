// The registry: the one list of job definitions, and every job with its dependencies bound. Job names,
// the SCHEDULER_CRONS check and the database CHECK on the run records all come from this list; adding a
// job is its file, its test and one line here. Triggers (HTTP, the in-process scheduler) only ever call
// a job through the runner, by name.
import type { DepsOf, JobDefinition } from './define-job.ts';
import type { JobResult, RegisteredJob } from './job-runner.ts';
import { cleanupDeviceSessionsJob } from './jobs/cleanup-device-sessions.job.ts';
import { cleanupExpiredTokensJob } from './jobs/cleanup-expired-tokens.job.ts';
import { cleanupGracePeriodsJob } from './jobs/cleanup-grace-periods.job.ts';
import { pruneStreamEventsJob } from './jobs/prune-stream-events.job.ts';
import { reconcileOrdersJob } from './jobs/reconcile-orders.job.ts';
import { rotateApiKeysJob } from './jobs/rotate-api-keys.job.ts';
import { strategyAutopilotJob } from './jobs/strategy-autopilot.job.ts';
import { syncAccountsJob } from './jobs/sync-accounts.job.ts';

/** Every job, in the order health, the dashboard and the OpenAPI document list them. */
export const JOB_DEFINITIONS = [
  rotateApiKeysJob,
  cleanupGracePeriodsJob,
  cleanupDeviceSessionsJob,
  cleanupExpiredTokensJob,
  strategyAutopilotJob,
  syncAccountsJob,
  pruneStreamEventsJob,
  reconcileOrdersJob,
] as const;

type Definitions = typeof JOB_DEFINITIONS;
export type JobName = Definitions[number]['name'];
export const JOB_NAMES: readonly JobName[] = JOB_DEFINITIONS.map((job) => job.name);

type Intersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;
/** What the jobs need together: each definition's dependencies. */
type RegistryDeps = Intersection<DepsOf<Definitions[number]>>;

export function createRegistry(deps: RegistryDeps): RegisteredJob[] {
  return JOB_DEFINITIONS.map((job: JobDefinition<JobName, RegistryDeps>) => ({
    name: job.name,
    cron: job.cron,
    summary: job.summary,
    description: job.description,
    result: job.result,
    run: (now: Date) => job.run(deps, now) as Promise<JobResult>,
    ...(job.units ? { units: (result: JobResult) => job.units!(result as never) } : {}),
    ...(job.unitName ? { unitName: job.unitName } : {}),
    ...(job.announce === false ? { announce: false } : {}),
  }));
}
