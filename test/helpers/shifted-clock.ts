// A clock that runs with real time plus an offset a test moves forward: waiting out a venue's
// Retry-After becomes `advance(ms)` instead of a sleep, and timestamps still increase between calls.
import type { Clock } from '../../src/platform/clock.ts';

export function shiftedClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms;
    },
  };
}
