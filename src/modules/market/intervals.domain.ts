// The candle intervals of the contract (Binance's list without 1s) and how long candles of each stay
// cached: the newest candle is still moving, so short intervals refresh sooner.

export const INTERVALS = [
  '1m',
  '3m',
  '5m',
  '15m',
  '30m',
  '1h',
  '2h',
  '4h',
  '6h',
  '8h',
  '12h',
  '1d',
  '3d',
  '1w',
  '1M',
] as const;
export type Interval = (typeof INTERVALS)[number];

const MINUTE = 60_000;
const DAY = 1_440 * MINUTE;

/** Nominal length; 1M is a calendar month, so its shortest (28 days) stands in where a bound is needed. */
export const INTERVAL_MS: Record<Interval, number> = {
  '1m': MINUTE,
  '3m': 3 * MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '30m': 30 * MINUTE,
  '1h': 60 * MINUTE,
  '2h': 120 * MINUTE,
  '4h': 240 * MINUTE,
  '6h': 360 * MINUTE,
  '8h': 480 * MINUTE,
  '12h': 720 * MINUTE,
  '1d': DAY,
  '3d': 3 * DAY,
  '1w': 7 * DAY,
  '1M': 28 * DAY,
};

export function isInterval(value: string): value is Interval {
  return (INTERVALS as readonly string[]).includes(value);
}

/** A sixtieth of the interval, between 5 s and 60 s: 1m–5m → 5 s, 15m → 15 s, 30m → 30 s, ≥ 1h → 60 s. */
export function candleTtlMs(interval: Interval): number {
  return Math.min(60_000, Math.max(5_000, INTERVAL_MS[interval] / 60));
}
