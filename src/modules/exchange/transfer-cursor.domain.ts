// Where a deposit or withdrawal sync reads (docs/decisions/155). Binance answers at most 90 days per
// call; a sync walks consecutive windows from the stored cursor (or the horizon) towards now, a few
// per call, and keeps the last day open so late-confirmed records are read again.

export const WINDOW_MS = 90 * 86_400_000;
/** Windows one sync reads per type: a year and a bit. */
export const MAX_WINDOWS_PER_SYNC = 5;
/** Records per window call: Binance's maximum. */
export const PAGE_LIMIT = 1000;
/** The cursor stays this far behind now, so records still pending (or credited late) are read again. */
export const SETTLE_MS = 86_400_000;

interface Window {
  since: number;
  until: number;
}

/** The first window: from `since` (asked), else the cursor, else the horizon; null when there is nothing to read. */
export function firstWindow(start: number, now: number): Window | null {
  return start >= now ? null : { since: start, until: Math.min(start + WINDOW_MS, now) };
}

/**
 * After a window's answer: where the next starts. A full page (the venue may hold more) continues
 * from just after its newest record; otherwise from the window's end.
 */
export function nextStart(window: Window, fetched: readonly { timestamp: number }[]): number {
  if (fetched.length < PAGE_LIMIT) return window.until;
  const newest = Math.max(...fetched.map((r) => r.timestamp));
  // A page full of one instant cannot be continued by time; move past it rather than loop.
  return newest + 1 > window.since ? newest + 1 : window.until;
}

/** The cursor stored after a sync that read up to `reached`. */
export function cursorAfter(reached: number, now: number, previous: number | null): number {
  const settled = Math.min(reached, now - SETTLE_MS);
  return previous === null ? settled : Math.max(previous, settled);
}
