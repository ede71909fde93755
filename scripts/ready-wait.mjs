// Time spent waiting, ready to run, for a core that other work held: the second figure of Linux's
// /proc/.../schedstat (nanoseconds; the first is the time run). On a shared machine that wait grows
// with the load, not with what the code does, so measures of the code leave it out: bounded-work's
// event-loop gaps (test/platform/http/bounded-work.test.ts) and the test runner's file timeout
// (decision 480). It lives beside the runner, which needs it; those tests import it from here.
// Where there is no /proc (not Linux) nothing is read: the wait is 0 and nothing is left out.
import { readFileSync } from 'node:fs';
import { eachTask } from './process-tree.mjs';

/** Run and wait times of one task (thread), in ms, or undefined when it is gone or unreadable. */
function schedstat(file) {
  try {
    const [run, wait] = readFileSync(file, 'latin1').split(' ');
    return { run: Number(run) / 1e6, wait: Number(wait) / 1e6 };
  } catch {
    return undefined;
  }
}

/** How long the calling thread has waited for a core, in ms. */
export function threadReadyWaitMs() {
  return schedstat('/proc/thread-self/schedstat')?.wait ?? 0;
}

/**
 * Run and wait times, in ms, of every thread of a process and of every process under it, found by
 * each thread's list of the children it started (a browser's own process group and a server that
 * started its own session are still found; a process whose parent ended is not), by thread id.
 */
export function treeSchedstats(pid) {
  const stats = new Map();
  eachTask(pid, (process, task) => {
    const stat = schedstat(`/proc/${process}/task/${task}/schedstat`);
    if (stat) stats.set(task, stat);
  });
  return stats;
}

/**
 * The time a process tree could have run since the clock was made, in ms: each interval between two
 * readings counts its wall time less the time the tree's threads waited for a core (summed over the
 * threads, so at most the whole interval), but never less than the CPU time they ran in it. A tree that
 * hangs, waiting on an event with no CPU used, is charged its wall time; one starved of cores is charged
 * little more than what it ran; one that keeps more threads busy than there are cores, which
 * would have them wait on each other, is still charged the CPU time it burns.
 * `read` is injectable so the arithmetic can be checked on readings of one's choosing.
 */
export function runnableClock(pid, { read = treeSchedstats, now = () => performance.now() } = {}) {
  let last = { at: now(), stats: read(pid) };
  const total = { chargedMs: 0, wallMs: 0, waitedMs: 0, ranMs: 0 };
  return {
    /** Takes a reading; returns the totals so far. */
    tick() {
      const at = now();
      const stats = read(pid);
      let waited = 0;
      let ran = 0;
      for (const [task, stat] of stats) {
        // A thread not seen before began since the last reading: all its time is new.
        const before = last.stats.get(task) ?? { run: 0, wait: 0 };
        waited += Math.max(0, stat.wait - before.wait);
        ran += Math.max(0, stat.run - before.run);
      }
      const elapsed = at - last.at;
      waited = Math.min(elapsed, waited);
      total.chargedMs += Math.max(elapsed - waited, ran);
      total.wallMs += elapsed;
      total.waitedMs += waited;
      total.ranMs += ran;
      last = { at, stats };
      return { ...total };
    },
  };
}
