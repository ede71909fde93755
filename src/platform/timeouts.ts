// Bounding a wait: the one way the codebase races work against a timer. The timer never outlives the
// race, and work that loses it may still fail later without an unhandled rejection.
// A timer that fires late because the event loop was busy does not decide at once: it waits for one
// turn of I/O (`setImmediate` runs after the poll phase), so an answer that arrived while the loop was
// blocked still wins. Without that, a busy process reads a dependency that answered in 2 ms as one
// that timed out, and falls back (e.g. the venue budget counting alone) for no reason.

/** `work` did not settle within `ms`. */
export class TimedOut extends Error {
  constructor(readonly ms: number) {
    super(`did not answer within ${ms} ms`);
    this.name = 'TimedOut';
  }
}

/** `work`'s outcome, or a rejection with `onTimeout()` (a `TimedOut` by default) once `ms` have passed. */
export function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => Error = () => new TimedOut(ms),
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => setImmediate(() => reject(onTimeout())), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Waits for `work` at most `ms`, whatever its outcome; answers whether it settled in time. Never rejects. */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  const settled = work.then(
    () => true,
    () => true,
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => setImmediate(() => resolve(false)), ms);
  });
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A dependency's check (answering its latency in ms) within `ms`: up with the latency rounded to 0.01 ms, or down. */
export async function probeWithin(
  check: () => Promise<number>,
  ms: number,
): Promise<{ up: true; latencyMs: number } | { up: false }> {
  try {
    const latency = await withTimeout(check(), ms);
    return { up: true, latencyMs: Math.round(latency * 100) / 100 };
  } catch {
    return { up: false };
  }
}
