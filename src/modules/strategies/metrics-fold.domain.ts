// A strategy's paper figures kept up to date fill by fill (decision 850): what the full computation of
// metrics.domain.ts knows after a strategy's fills, stored with the strategy, so a new fill costs the
// same whatever the history. The open lots (FIFO per symbol), the peak capital, the round trips closed in
// their final place (counted, and the equity curve's points that can still be its deepest fall) and the
// last round trip, which a later fill of its own order may still grow. The open lots are numbered per
// symbol, so that they can be kept apart from the state and only the oldest read (decision 930). Pure.
import type { StrategyMetrics } from './strategies.domain.ts';
import { applyToLots, D, type Dec, inFigureOrder, type Lot, type MetricsFill, rounded } from './metrics.domain.ts';

/** Decimals as strings (exact), so the state goes through JSON unchanged. */
export interface MetricsState {
  /** The last fill folded in: [at ISO, trade id]; a fill ordered before it cannot be folded. */
  last: [string, string] | null;
  /**
   * Open lots per symbol, oldest first: [units, cost]. All of them after `stateOfFills`; stored apart
   * (decision 930), so while a report is folded only the oldest lots it may close and those it opens.
   */
  lots: Record<string, [string, string][]>;
  /**
   * Per symbol ever traded, the numbers of its open lots: [the oldest's, the next one's]. A lot opened
   * takes the next number, a lot closed is always the oldest; so the open lots are numbered first..next-1.
   */
  numbers: Record<string, [number, number]>;
  open: string;
  /** The peak capital: the most ever in open lots at once. */
  peak: string;
  /** Round trips in their final place (all but the last), their winners, and their summed net gain. */
  trips: number;
  wins: number;
  sum: string;
  /** The highest the summed net gain has been (0 at least). */
  high: string;
  /** Points [fall below the high, high] that can still be the deepest fall, whatever peak capital comes. */
  falls: [string, string][];
  /** The last round trip: its order (a later fill of it grows it) and net gain. */
  tail: { order: string; net: string } | null;
}

export const emptyMetricsState = (): MetricsState => ({
  last: null,
  lots: {},
  numbers: {},
  open: '0',
  peak: '0',
  trips: 0,
  wins: 0,
  sum: '0',
  high: '0',
  falls: [],
  tail: null,
});

const str = (value: Dec) => value.toString();

/** Puts a round trip of net gain `net` in its final place on the equity curve. */
export function commitTrip(state: MetricsState, net: Dec): void {
  state.trips += 1;
  if (net.gt(0)) state.wins += 1;
  const sum = new D(state.sum).plus(net);
  const high = D.max(new D(state.high), sum);
  state.sum = str(sum);
  state.high = str(high);
  const fall = high.minus(sum);
  if (!fall.gt(0)) return;
  const points = state.falls.map(([a, b]) => [new D(a), new D(b)] as const);
  // A point with a fall no deeper and a high no lower is never the deepest again.
  if (points.some(([a, b]) => a.gte(fall) && b.lte(high))) return;
  const kept = points.filter(([a, b]) => !(a.lte(fall) && b.gte(high)));
  kept.push([fall, high]);
  state.falls = prune(kept, new D(state.peak)).map(([a, b]) => [str(a), str(b)]);
}

/**
 * Drops the points another beats at peak capital `capital`: a deeper fall beats a shallower one from a
 * lower high at every capital from some value on, and the peak capital never falls.
 */
function prune(points: (readonly [Dec, Dec])[], capital: Dec): (readonly [Dec, Dec])[] {
  return points.filter(
    ([a, b]) => !points.some(([a2, b2]) => a2.gt(a) && a2.times(capital.plus(b)).gte(a.times(capital.plus(b2)))),
  );
}

/**
 * Folds fills ordered after `state.last` into it. Answers false, leaving `state` unusable, when the
 * fold cannot give what the full computation gives: a fill ordered before one folded already, or a
 * closing fill of an order whose round trip is not the last (`hadTrip` says which orders may have one
 * from earlier fills), which moves that round trip to the end of the curve.
 */
export function foldFills(state: MetricsState, fills: readonly MetricsFill[], hadTrip: ReadonlySet<string>): boolean {
  const seen = new Set(hadTrip);
  const book: LotBook = new Map();
  for (const fill of fills) {
    const key: [string, string] = [fill.at.toISOString(), fill.tradeId];
    if (state.last && (key[0] < state.last[0] || (key[0] === state.last[0] && key[1] <= state.last[1]))) return false;
    state.last = key;
    const net = foldLots(state, fill, book);
    if (net === null) continue;
    if (state.tail?.order === fill.orderId) {
      state.tail.net = str(new D(state.tail.net).plus(net));
      continue;
    }
    if (seen.has(fill.orderId)) return false;
    seen.add(fill.orderId);
    if (state.tail) commitTrip(state, new D(state.tail.net));
    state.tail = { order: fill.orderId, net: str(net) };
  }
  closeBook(state, book);
  return true;
}

/**
 * The lots of the symbols a fold met, as decimals while it runs, written back to the state at its end:
 * turned into decimals and back once a fold, not once a fill (a fold over many open lots stays linear).
 */
type LotBook = Map<string, Lot[]>;

function closeBook(state: MetricsState, book: LotBook): void {
  for (const [symbol, queue] of book) {
    if (queue.length > 0) state.lots[symbol] = queue.map((lot) => [str(lot.amount), str(lot.cost)]);
    else delete state.lots[symbol];
  }
}

/** The fill's effect on the open lots (applyToLots, on the state's); answers the net gain of the units it closed, or null. */
function foldLots(state: MetricsState, fill: MetricsFill, book: LotBook): Dec | null {
  let queue = book.get(fill.symbol);
  if (!queue) {
    queue = (state.lots[fill.symbol] ?? []).map(([a, c]) => ({ amount: new D(a), cost: new D(c) }));
    book.set(fill.symbol, queue);
  }
  const before = queue.length;
  const { open, net } = applyToLots(queue, fill, new D(state.open));
  // A buy opens at most one lot and closes none; a sell closes the oldest and opens none.
  const opened = fill.side === 'buy' ? queue.length - before : 0;
  const [first, next] = state.numbers[fill.symbol] ?? [0, 0];
  state.numbers[fill.symbol] = [first + before + opened - queue.length, next + opened];
  state.open = str(open);
  state.peak = str(D.max(new D(state.peak), open));
  return net;
}

/** The figures of a state (decision 216): as metrics.domain.ts's strategyMetrics answers them. */
export function metricsOf(state: MetricsState): StrategyMetrics {
  const trips = state.trips + (state.tail ? 1 : 0);
  const capital = new D(state.peak);
  if (trips === 0 || capital.isZero()) return { paper_trades: trips };
  const whole: MetricsState = { ...state, falls: [...state.falls] };
  if (state.tail) commitTrip(whole, new D(state.tail.net));
  let drawdown = new D(0);
  for (const [a, b] of whole.falls) drawdown = D.max(drawdown, new D(a).div(capital.plus(b)).times(100));
  return {
    paper_trades: trips,
    win_rate: rounded(new D(whole.wins).div(trips)),
    return_pct: rounded(new D(whole.sum).div(capital).times(100)),
    max_drawdown_pct: rounded(drawdown),
  };
}

/**
 * The state after all of a strategy's fills, computed from all of them (as metrics.domain.ts's
 * roundTrips): round trips in the order they completed, all but the last in their final place.
 */
export function stateOfFills(fills: readonly MetricsFill[]): MetricsState {
  const state = emptyMetricsState();
  const trips = new Map<string, { order: string; net: Dec; closedAt: number }>();
  const book: LotBook = new Map();
  for (const fill of inFigureOrder(fills)) {
    state.last = [fill.at.toISOString(), fill.tradeId];
    const net = foldLots(state, fill, book);
    if (net === null) continue;
    const trip = trips.get(fill.orderId);
    if (trip) {
      trip.net = trip.net.plus(net);
      trip.closedAt = fill.at.getTime();
    } else trips.set(fill.orderId, { order: fill.orderId, net, closedAt: fill.at.getTime() });
  }
  closeBook(state, book);
  const ordered = [...trips.values()].sort((a, b) => a.closedAt - b.closedAt);
  const last = ordered.pop();
  for (const trip of ordered) commitTrip(state, trip.net);
  state.tail = last ? { order: last.order, net: str(last.net) } : null;
  return state;
}
