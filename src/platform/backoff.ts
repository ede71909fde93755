// Exponential back-off with jitter: the one curve for every retry (a reconnecting stream, an outbox
// delivery). Jitter spreads retries that failed together so they do not come back in lockstep.

interface Backoff {
  baseMs: number;
  maxMs: number;
  /** The delay is the doubled ceiling times a factor drawn between these two. */
  jitter: readonly [number, number];
}

/** Delay before retry `attempt` (0-based): `baseMs` doubling per attempt up to `maxMs`, times the jitter factor. */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
  const [low, high] = backoff.jitter;
  return Math.round(ceiling * (low + (high - low) * random()));
}
