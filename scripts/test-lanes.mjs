// The order a test run takes its files in, and which of them go to a lane of their own (decision 1240).

/** A file that mostly waits: in its last run here it could have run this long at least... */
const WAITING_MIN_SECONDS = 4;
/** ...and used less than this share of a core over that time (pacing it tests, fakes that answer late). */
const WAITING_MAX_CPU_SHARE = 0.4;

/**
 * Splits `files` into the queue the run's lanes share, longest CPU time first (files not seen before
 * first, as they may be long), and the files that mostly wait, longest first, for a lane of their own
 * beside them: three of those at once left the cores idle while they waited. `cpu` and `runnable` give
 * a file's CPU seconds and the seconds it could have run (its wall time less what it waited for a core,
 * so that a busy machine does not make a file look as if it waited) in its last run here, or undefined.
 * Without `apart`, every file is in the queue.
 */
export function planLanes(files, cpu, runnable, apart = true) {
  const expected = (file) => cpu(file) ?? Number.POSITIVE_INFINITY;
  const queue = [...files].sort((a, b) => expected(b) - expected(a));
  if (!apart) return { queue, waiting: [] };
  const waits = (file) => {
    const [seconds, used] = [runnable(file), cpu(file)];
    return (
      seconds !== undefined &&
      used !== undefined &&
      seconds >= WAITING_MIN_SECONDS &&
      used / seconds < WAITING_MAX_CPU_SHARE
    );
  };
  const waiting = new Set(queue.filter(waits));
  return {
    queue: queue.filter((file) => !waiting.has(file)),
    waiting: [...waiting].sort((a, b) => runnable(b) - runnable(a)),
  };
}
