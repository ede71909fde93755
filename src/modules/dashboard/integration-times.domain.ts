// How the integrations answer combines what several sources know of one system: the latest success
// and the latest failure still standing, compared as times (not as the strings they are shown as).
import { safeErrorText } from './safe-text.domain.ts';

/** A failure one source knows of; `at` null when it knows of none. */
export interface Failure {
  at: Date | null;
  error?: string | null;
}

/** An ISO time another module reports (the outbox's), or ms since the epoch (the market's), as a Date. */
export const dateOf = (value: string | number | null): Date | null => (value === null ? null : new Date(value));

/** The later of two times; the first when they are equal. */
export function later(a: Date | null, b: Date | null): Date | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.getTime() >= b.getTime() ? a : b;
}

/** The most recent of several failures, its text cleaned; the first one given wins a tie. */
export function latestError(...failures: Failure[]): { lastErrorAt: Date | null; lastError: string | null } {
  let best: Failure = { at: null, error: null };
  for (const failure of failures) {
    if (failure.at !== null && (best.at === null || failure.at.getTime() > best.at.getTime())) best = failure;
  }
  return { lastErrorAt: best.at, lastError: safeErrorText(best.error ?? null) };
}
