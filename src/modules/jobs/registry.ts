// The registry: every job the modules bound (each module binds the jobs its declaration lists to its own
// dependencies, decision 230), in the order of the declared names. Triggers (HTTP, the in-process
// scheduler) only ever call a job through the runner, by name.
import type { BoundJob } from '../../platform/jobs.ts';

/**
 * The bound jobs in the order of `declared`; refuses a declared job no module bound, a bound job none
 * declared, and a job bound twice.
 */
export function createRegistry(bound: readonly BoundJob[], declared: readonly string[]): BoundJob[] {
  const byName = new Map<string, BoundJob>();
  for (const job of bound) {
    if (byName.has(job.name)) throw new Error(`job bound twice: ${job.name}`);
    if (!declared.includes(job.name)) throw new Error(`job bound but not declared: ${job.name}`);
    byName.set(job.name, job);
  }
  const unbound = declared.filter((name) => !byName.has(name));
  if (unbound.length > 0) throw new Error(`job declared but not bound: ${unbound.join(', ')}`);
  return declared.map((name) => byName.get(name)!);
}
