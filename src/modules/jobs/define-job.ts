// A job file declares the whole job in one `defineJob` call: its name (written nowhere else), default
// cron, texts for the OpenAPI document, result schema and function `(deps, now) → result`. The registry
// lists the definitions once; names, the SCHEDULER_CRONS check and the database CHECK come from that list.
import type { Static, TSchema } from 'typebox';
import type { RunUnits } from './jobs.domain.ts';

export interface JobDefinition<Name extends string = string, Deps = never, Result extends TSchema = TSchema> {
  /** Also the path under /api/scheduled/ and the value of `scheduled_job_runs.job`. */
  name: Name;
  /** When the in-process scheduler runs it (UTC cron expression), unless SCHEDULER_CRONS says otherwise. */
  cron: string;
  summary: string;
  /** What it does, for the OpenAPI description. */
  description: string;
  /** Schema of what it answers. */
  result: Result;
  run(deps: Deps, now: Date): Promise<Static<Result>>;
  /** A job that works unit by unit: what it did with them, read from its result (docs/decisions/126). */
  units?(result: Static<Result>): RunUnits;
  /** What its units are, for the error of a run whose every unit failed, e.g. `credentials`. */
  unitName?: string;
  /** False for housekeeping run every few minutes: its runs are recorded, not announced (`job.finished`). */
  announce?: boolean;
}

/** Identity at run time; keeps the name's literal type so that `JobName` is derived from the definitions. */
export function defineJob<const Name extends string, Deps, Result extends TSchema>(
  job: JobDefinition<Name, Deps, Result>,
): JobDefinition<Name, Deps, Result> {
  return job;
}

/** The dependencies a definition's function needs. */
export type DepsOf<Job> = Job extends { run(deps: infer Deps, now: Date): unknown } ? Deps : never;
