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

/** A price the scoring needs: a symbol's at an instant. */
export interface PricePoint {
  symbol: string;
  at: Date;
}

/** One candle request: a window of a symbol, how many candles it holds at most, and the points it prices (their indexes). */
export interface CandleRequest {
  symbol: string;
  start: Date;
  end: Date;
  limit: number;
  points: number[];
}

/** Candles one request asks for at most: one page of the venue's answer. */
export const CANDLES_PER_REQUEST = 1000;

/** How many candles of `intervalMs` can open within [start, end]. */
const candlesIn = (start: Date, end: Date, intervalMs: number) =>
  Math.floor((end.getTime() - start.getTime()) / intervalMs) + 1;

/**
 * The candle requests that price every point: each point's own window (`priceWindow`), and points of
 * one symbol close enough in time to share a request of at most `perRequest` candles merged into it.
 * Calls on one market tend to come together, so a run needs a request per cluster, not two per call.
 */
export function candleRequests(
  points: readonly PricePoint[],
  perRequest = CANDLES_PER_REQUEST,
  intervalMs = SCORING_INTERVAL_MS,
): CandleRequest[] {
  const bySymbol = new Map<string, number[]>();
  points.forEach((point, i) => {
    const indexes = bySymbol.get(point.symbol);
    if (indexes) indexes.push(i);
    else bySymbol.set(point.symbol, [i]);
  });
  const requests: CandleRequest[] = [];
  for (const [symbol, indexes] of bySymbol) {
    indexes.sort((a, b) => points[a]!.at.getTime() - points[b]!.at.getTime());
    let current: CandleRequest | undefined;
    for (const i of indexes) {
      const { start, end } = priceWindow(points[i]!.at, intervalMs);
      if (current && candlesIn(current.start, end, intervalMs) <= perRequest) {
        current.end = end;
        current.limit = candlesIn(current.start, end, intervalMs);
        current.points.push(i);
      } else {
        current = { symbol, start, end, limit: candlesIn(start, end, intervalMs), points: [i] };
        requests.push(current);
      }
    }
  }
  return requests;
}
