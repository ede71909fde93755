// A scheduled job as its owning module declares it: one `defineJob` call in `<job>.job.ts` beside the
// module's other files, holding its name (written nowhere else), default cron, texts for the OpenAPI
// document, result schema and function `(deps, now) → result`. The module lists the definition in its
// declaration (`<module>.module.ts`) and binds it to its own dependencies when it is created
// (`bindJob`); the jobs module runs, schedules and records what the modules bound (decision 230).
// Here, below the modules, like the stream events' declarations, so an owner needs no value of the
// jobs module.
import type { Static, TSchema } from 'typebox';

/** What a job that works unit by unit (a credential, an intel event) did with them. */
export interface RunUnits {
  total: number;
  succeeded: number;
  failed: number;
}

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

/** Identity at run time; keeps the name's literal type so that job names are derived from the definitions. */
export function defineJob<const Name extends string, Deps, Result extends TSchema>(
  job: JobDefinition<Name, Deps, Result>,
): JobDefinition<Name, Deps, Result> {
  return job;
}

/** Any definition, whatever its dependencies (a function of any argument takes `never`): what a module declares. */
export type AnyJobDefinition = JobDefinition<string, never>;

export type JobResult = Record<string, unknown>;

/** A job with its dependencies bound: what a module hands the jobs module. */
export interface BoundJob {
  /** Also the path under /api/scheduled/. */
  name: string;
  /** When the in-process scheduler runs it (UTC cron expression). */
  cron: string;
  summary: string;
  /** What it does, for the OpenAPI description. */
  description: string;
  /** Schema of what it answers. */
  result: TSchema;
  run(now: Date): Promise<JobResult>;
  /** A job that works unit by unit: what it did with them, read from its result (docs/decisions/126). */
  units?(result: JobResult): RunUnits;
  /** What its units are, for the error of a run whose every unit failed, e.g. `credentials`. */
  unitName?: string;
  /** False: its runs are not announced on admins' streams. */
  announce?: boolean;
}

/**
 * The job of a definition, bound to what its function needs. `cron` replaces the definition's default
 * where the owner's configuration decides it (the orders' reconcile period); SCHEDULER_CRONS still
 * overrides both.
 */
export function bindJob<Deps, Result extends TSchema>(
  job: JobDefinition<string, Deps, Result>,
  deps: Deps,
  options: { cron?: string } = {},
): BoundJob {
  const { units } = job;
  return {
    name: job.name,
    cron: options.cron ?? job.cron,
    summary: job.summary,
    description: job.description,
    result: job.result,
    run: (now) => job.run(deps, now) as Promise<JobResult>,
    ...(units ? { units: (result: JobResult) => units(result as Static<Result>) } : {}),
    ...(job.unitName ? { unitName: job.unitName } : {}),
    ...(job.announce === false ? { announce: false } : {}),
  };
}
