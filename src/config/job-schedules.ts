// SCHEDULER_CRONS: per-job cron overrides, checked at start by croner exactly as the scheduler will
// read them (UTC), so a typo stops the start instead of silently never running a job. The job names
// are the registry's, passed in (config sits below the modules); without them the jobs module checks
// the names when it is built.
import { Cron, type CronOptions } from 'croner';

/**
 * Croner reading every schedule in UTC. A fixed offset of 0 is UTC (which has no daylight saving) without
 * croner's `timezone`, which goes through `Intl.DateTimeFormat` and so makes the process map about 4 MiB
 * of ICU locale data at start (decision 391).
 */
export const CRON_UTC = { utcOffset: 0 } as const satisfies CronOptions;

function cronProblem(cron: unknown): string | undefined {
  if (typeof cron !== 'string') return 'must map to a cron expression (a string)';
  try {
    // Without a function croner only parses; an expression that never fires is refused as well.
    return new Cron(cron, CRON_UTC).nextRun() ? undefined : `has a cron expression that never fires ("${cron}")`;
  } catch (error) {
    return `has an invalid cron expression ("${cron}"): ${(error as Error).message}`;
  }
}

/** Names the modules define, which config cannot import (it sits below them): passed in by the entry points. */
export interface Known {
  jobNames?: readonly string[];
  /** The variables holding the webhook providers' secrets, as their declarations name them. */
  webhookSecrets?: readonly string[];
}

/** The problem of a name that is not a job's, listing the jobs. */
export const unknownJob = (jobNames: readonly string[]) => `is not a job (jobs: ${jobNames.join(', ')})`;

/** A JSON object job name → cron expression; every problem is added to `problems`, one line each. */
export function parseJobCrons(
  variable: string,
  raw: string | undefined,
  problems: string[],
  jobNames?: readonly string[],
): Record<string, string> {
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    problems.push(`${variable} must be a JSON object mapping job names to cron expressions`);
    return {};
  }
  const crons: Record<string, string> = {};
  for (const [job, cron] of Object.entries(parsed)) {
    const problem = jobNames && !jobNames.includes(job) ? unknownJob(jobNames) : cronProblem(cron);
    if (problem) problems.push(`${variable}: "${job}" ${problem}`);
    else crons[job] = (cron as string).trim();
  }
  return crons;
}
