// How a matured market-intel call is scored: the realised move of the market between the event's
// detection and its horizon, in percent, from the venue's 1-minute candles. Pure.

export const SCORING_INTERVAL = '1m';
const SCORING_INTERVAL_MS = 60_000;

export interface ClosedCandle {
  openTime: number;
  close: number;
}

/**
 * The candle window that holds the price known at `t`: the last candle *closed* by `t` opens at most
 * two intervals before it, so [t - 2 intervals, t] always contains it (and at most three candles).
 */
export function priceWindow(t: Date, intervalMs = SCORING_INTERVAL_MS): { start: Date; end: Date } {
  return { start: new Date(t.getTime() - 2 * intervalMs), end: t };
}

/**
 * The last price known at `t`: the close of the last candle that had closed by then (open time +
 * interval ≤ t). No look-ahead: a candle still open at `t` is ignored. Null when there is none.
 */
export function closeAt(candles: readonly ClosedCandle[], t: Date, intervalMs = SCORING_INTERVAL_MS): number | null {
  let found: ClosedCandle | undefined;
  for (const candle of candles) {
    if (candle.openTime + intervalMs <= t.getTime() && (!found || candle.openTime > found.openTime)) found = candle;
  }
  return found && Number.isFinite(found.close) && found.close > 0 ? found.close : null;
}

/**
 * The realised move from `atDetection` to `atHorizon` in percent, rounded to 4 decimals. Its sign is
 * the market's, not the call's: the intel summary counts a call correct when this sign matches the
 * direction (docs/decisions/021).
 */
export function outcomePct(atDetection: number, atHorizon: number): number {
  const pct = ((atHorizon - atDetection) / atDetection) * 100;
  return Math.round(pct * 10_000) / 10_000 || 0;
}
