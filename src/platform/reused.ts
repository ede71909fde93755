// One answer reused for a while, shared by the callers that come while it is computed: for public
// answers that read nothing of the request and cost statements or another system's calls (decisions
// 742, 747). A failed computation is not kept.
import type { Clock } from './clock.ts';

export interface Reused<T> {
  /** The answer begun within the last `ms` by the clock, or a new one. */
  get(): Promise<T>;
  /** The next `get` computes again. */
  forget(): void;
}

export function reusedFor<T>(ms: number, clock: Clock, compute: () => Promise<T>): Reused<T> {
  let last: { at: number; answer: Promise<T> } | undefined;
  return {
    get() {
      const now = clock.now().getTime();
      // A clock set back counts as stale, as one moved past the window does.
      if (!last || now - last.at >= ms || now < last.at) {
        const entry = { at: now, answer: compute() };
        entry.answer.catch(() => {
          if (last === entry) last = undefined;
        });
        last = entry;
      }
      return last.answer;
    },
    forget() {
      last = undefined;
    },
  };
}
