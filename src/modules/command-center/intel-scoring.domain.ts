// How an intel call is judged: a direction names a sign, the realised move (outcome_pct) has one,
// and the call was correct when they agree. A flat outcome (0) agrees with neither.

const BULLISH_DIRECTIONS = ['bullish', 'long', 'up'] as const;
const BEARISH_DIRECTIONS = ['bearish', 'short', 'down'] as const;
export const INTEL_DIRECTIONS = [...BULLISH_DIRECTIONS, ...BEARISH_DIRECTIONS] as const;

export const TRUST_TIERS = ['verified', 'standard', 'quarantined'] as const;

/** An event without expires_at is judged (and counts as active) for this long after detection. */
export const DEFAULT_HORIZON_MS = 24 * 60 * 60 * 1000;

/**
 * The scoring job stops asking for an event after this many runs in which the venue could not
 * price it (symbol not listed, no candle at the time): that answer does not change. Failures of the
 * market data source itself do not count; those events are tried again.
 */
export const SCORING_GIVE_UP_AFTER = 3;

export function directionSign(direction: string): 1 | -1 | 0 {
  if ((BULLISH_DIRECTIONS as readonly string[]).includes(direction)) return 1;
  if ((BEARISH_DIRECTIONS as readonly string[]).includes(direction)) return -1;
  return 0;
}

export function isCorrect(direction: string, outcomePct: number | null): boolean {
  if (outcomePct === null || outcomePct === 0 || !Number.isFinite(outcomePct)) return false;
  return Math.sign(outcomePct) === directionSign(direction);
}

export function horizonOf(event: { detectedAt: Date; expiresAt: Date | null }): Date {
  return event.expiresAt ?? new Date(event.detectedAt.getTime() + DEFAULT_HORIZON_MS);
}

export interface SourceSummary {
  total: number;
  scored: number;
  correct: number;
  precision: number;
}

/** Share of scored calls that were correct; 0 while nothing is scored (never NaN). */
export function precisionOf(correct: number, scored: number): number {
  return scored === 0 ? 0 : correct / scored;
}

/** Events of one source sharing a direction and the sign of their outcome (null: not scored). */
export interface OutcomeGroup {
  source: string;
  direction: string;
  outcomeSign: number | null;
  count: number;
}

/**
 * Per-source tally. The database groups events by (source, direction, sign of outcome), a handful of
 * rows however long the feed, and this folds them, so the rule lives in one place.
 */
export function summarize(groups: readonly OutcomeGroup[]): Record<string, SourceSummary> {
  const summary: Record<string, SourceSummary> = {};
  for (const group of groups) {
    const entry = (summary[group.source] ??= { total: 0, scored: 0, correct: 0, precision: 0 });
    entry.total += group.count;
    if (group.outcomeSign === null) continue;
    entry.scored += group.count;
    if (isCorrect(group.direction, group.outcomeSign)) entry.correct += group.count;
  }
  for (const entry of Object.values(summary)) entry.precision = precisionOf(entry.correct, entry.scored);
  return summary;
}
