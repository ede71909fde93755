// Which UTC days lie wholly inside a window of trade times: those are read from the summed days
// (exchange_trade_days), the rest of the window from the trades themselves (docs/decisions/124).

const DAY_MS = 86_400_000;

/** Days as `YYYY-MM-DD`: from `first` (inclusive) to `past` (exclusive); undefined is unbounded. */
export interface DaySpan {
  first?: string;
  past?: string;
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The whole days of [start, end] (both inclusive, either open): a day is whole when it starts at or
 * after `start` and the next one starts at or before `end`. Null when no day is whole.
 */
export function wholeDays(start?: Date, end?: Date): DaySpan | null {
  const first = start ? Math.ceil(start.getTime() / DAY_MS) * DAY_MS : undefined;
  const past = end ? Math.floor(end.getTime() / DAY_MS) * DAY_MS : undefined;
  if (first !== undefined && past !== undefined && first >= past) return null;
  return { first: first === undefined ? undefined : dayOf(first), past: past === undefined ? undefined : dayOf(past) };
}
