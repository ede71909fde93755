// A strategy's paper figures from its fills, pure (docs/decisions/216). Buys open lots per symbol;
// a sell order closes the oldest lots first (FIFO), and what one sell order closes is one round trip.
// Its net gain is what the closed units brought in minus what they cost, fees included on both sides:
// a fee in the base asset changes the units (a buy receives fewer, a sell gives more), a fee in the
// quote asset changes the money; a fee in a third asset is not valued here. Units sold beyond the
// strategy's own open lots have no cost here and make no round trip.
import { Decimal } from 'decimal.js';
import type { StrategyMetrics } from './strategies.domain.ts';

export const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_EVEN });
export type Dec = InstanceType<typeof D>;

export interface MetricsFill {
  tradeId: string;
  /** The order it belongs to: one sell order's fills make one round trip. */
  orderId: string;
  /** ccxt's unified symbol, BASE/QUOTE. */
  symbol: string;
  side: 'buy' | 'sell';
  price: string;
  amount: string;
  fee: string;
  feeCurrency: string | null;
  at: Date;
}

export interface RoundTrip {
  orderId: string;
  symbol: string;
  /** Units closed. */
  amount: Dec;
  /** Proceeds less fees minus the cost basis (fees included) of the units closed. */
  net: Dec;
  closedAt: Date;
}

export interface Lot {
  amount: Dec;
  /** What the units left in the lot cost, fees included (kept whole, so a lot closed entirely costs exactly it). */
  cost: Dec;
}

const byTime = (a: MetricsFill, b: MetricsFill) =>
  a.at.getTime() - b.at.getTime() || (a.tradeId < b.tradeId ? -1 : a.tradeId > b.tradeId ? 1 : 0);

/** Orders fills as the figures take them: by time, then trade id. */
export const inFigureOrder = (fills: readonly MetricsFill[]): MetricsFill[] => [...fills].sort(byTime);

/** The units a sell gives up from the open lots: its amount, and a fee in the base asset on top. */
export function unitsGiven(fill: MetricsFill): Dec {
  const amount = new D(fill.amount);
  return fill.feeCurrency === fill.symbol.split('/')[0] ? amount.plus(new D(fill.fee)) : amount;
}

/**
 * A fill's effect on its symbol's open lots, in place: a buy opens a lot, a sell closes the oldest first.
 * Answers the capital left in open lots (`open` before the fill), and for a sell the units it closed and
 * their net gain (`net` null when it closed none).
 */
export function applyToLots(queue: Lot[], fill: MetricsFill, open: Dec): { open: Dec; closed: Dec; net: Dec | null } {
  const [base, quote] = fill.symbol.split('/');
  const price = new D(fill.price);
  const amount = new D(fill.amount);
  const fee = new D(fill.fee);
  const feeInBase = fill.feeCurrency === base;
  const feeInQuote = fill.feeCurrency === quote;
  if (fill.side === 'buy') {
    const received = feeInBase ? amount.minus(fee) : amount;
    const cost = price.times(amount).plus(feeInQuote ? fee : 0);
    if (received.lte(0)) return { open, closed: new D(0), net: null };
    queue.push({ amount: received, cost });
    return { open: open.plus(cost), closed: new D(0), net: null };
  }
  const given = unitsGiven(fill);
  const proceeds = price.times(amount).minus(feeInQuote ? fee : 0);
  let left = given;
  let basis = new D(0);
  while (left.gt(0) && queue.length > 0) {
    const lot = queue[0]!;
    const take = D.min(lot.amount, left);
    const part = take.eq(lot.amount) ? lot.cost : lot.cost.times(take).div(lot.amount);
    basis = basis.plus(part);
    lot.cost = lot.cost.minus(part);
    lot.amount = lot.amount.minus(take);
    left = left.minus(take);
    if (lot.amount.isZero()) queue.shift();
  }
  const closed = given.minus(left);
  if (closed.isZero()) return { open, closed, net: null };
  return { open: open.minus(basis), closed, net: proceeds.times(closed).div(given).minus(basis) };
}

/**
 * The round trips the fills close, in the order they completed, and the most capital the strategy
 * had in open lots at once (the base its return and drawdown are counted on).
 */
export function roundTrips(fills: readonly MetricsFill[]): { trips: RoundTrip[]; peakCapital: Dec } {
  const lots = new Map<string, Lot[]>();
  const trips = new Map<string, RoundTrip>();
  let open = new D(0);
  let peakCapital = new D(0);
  for (const fill of inFigureOrder(fills)) {
    const queue = lots.get(fill.symbol) ?? [];
    lots.set(fill.symbol, queue);
    const applied = applyToLots(queue, fill, open);
    open = applied.open;
    peakCapital = D.max(peakCapital, open);
    const { closed, net } = applied;
    if (net === null) continue;
    const trip = trips.get(fill.orderId);
    if (trip) {
      trip.amount = trip.amount.plus(closed);
      trip.net = trip.net.plus(net);
      trip.closedAt = fill.at;
    } else
      trips.set(fill.orderId, { orderId: fill.orderId, symbol: fill.symbol, amount: closed, net, closedAt: fill.at });
  }
  const ordered = [...trips.values()].sort((a, b) => a.closedAt.getTime() - b.closedAt.getTime());
  return { trips: ordered, peakCapital };
}

/** A figure as answered: 4 decimals. */
export const rounded = (value: Dec) => value.toDecimalPlaces(4).toNumber();

/**
 * `paper_trades`: closed round trips; `win_rate`: the share with a positive net gain (0..1);
 * `return_pct`: their summed net gain over the peak capital, in percent; `max_drawdown_pct`: the
 * largest fall from a peak of the equity curve (peak capital, then plus each round trip's net gain
 * as it closes), in percent of that peak. Without a round trip only `paper_trades` (0) is known.
 */
export function strategyMetrics(fills: readonly MetricsFill[]): StrategyMetrics {
  const { trips, peakCapital } = roundTrips(fills);
  if (trips.length === 0 || peakCapital.isZero()) return { paper_trades: trips.length };
  const wins = trips.filter((t) => t.net.gt(0)).length;
  let equity = peakCapital;
  let peak = peakCapital;
  let drawdown = new D(0);
  for (const trip of trips) {
    equity = equity.plus(trip.net);
    peak = D.max(peak, equity);
    drawdown = D.max(drawdown, peak.minus(equity).div(peak).times(100));
  }
  return {
    paper_trades: trips.length,
    win_rate: rounded(new D(wins).div(trips.length)),
    return_pct: rounded(equity.minus(peakCapital).div(peakCapital).times(100)),
    max_drawdown_pct: rounded(drawdown),
  };
}
