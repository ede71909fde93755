// A strategy's open lots, kept apart from the state of its figures (decision 930): one row a lot,
// numbered per symbol (MetricsState.numbers), so a report reads only the oldest lots its sells may
// close and writes only what it changed, however many lots are open. Pure: what to read before a
// fold, and what to write after it.
import { D, type Dec, type MetricsFill, unitsGiven } from './metrics.domain.ts';
import type { MetricsState } from './metrics-fold.domain.ts';

/** An open lot as stored: its symbol, its number within the symbol, its units and cost (exact decimals). */
export interface StoredLot {
  symbol: string;
  seq: number;
  amount: string;
  cost: string;
}

/** A symbol's open lots as a report found them: their numbers, and the oldest ones read. */
export interface LotWindow {
  numbers: [number, number];
  read: [string, string][];
}

/** The changes a fold made to the stored lots. */
export interface LotWrites {
  /** Per symbol, the lots closed: every lot numbered below `seq`. */
  closed: { symbol: string; seq: number }[];
  /** Lots partly closed (at most one a symbol, the oldest left). */
  changed: StoredLot[];
  opened: StoredLot[];
}

/**
 * Per symbol of the report, the units its sells may take from the lots open before it: at most all
 * they give, so the lots read from the oldest until they hold as much are all that the fold can close
 * of them (lots the report opens are closed only once those are gone).
 */
export function lotDemand(fills: readonly MetricsFill[]): Map<string, Dec> {
  const demand = new Map<string, Dec>();
  for (const fill of fills) {
    const given = fill.side === 'sell' ? unitsGiven(fill) : new D(0);
    demand.set(fill.symbol, (demand.get(fill.symbol) ?? new D(0)).plus(given));
  }
  return demand;
}

/** Whether the lots read hold `demand` units, or are all of the symbol's open lots: reading can stop. */
export function readEnough(window: LotWindow, demand: Dec): boolean {
  const [first, next] = window.numbers;
  if (window.read.length >= next - first) return true;
  return window.read.reduce((sum, [amount]) => sum.plus(amount), new D(0)).gte(demand);
}

/**
 * What to write after `state` folded a report whose symbols' lots were found as `windows` (and put in
 * `state.lots` as read): the lots closed below the oldest left, the oldest left if a sell took part of
 * it, and the lots opened that are still open. `state.lots` then holds, per symbol, the read lots left
 * followed by the lots opened left.
 */
export function lotWrites(windows: ReadonlyMap<string, LotWindow>, state: MetricsState): LotWrites {
  const writes: LotWrites = { closed: [], changed: [], opened: [] };
  for (const [symbol, { numbers, read }] of windows) {
    const [first, next] = numbers;
    const [firstAfter, nextAfter] = state.numbers[symbol] ?? [first, next];
    const left = state.lots[symbol] ?? [];
    const readUpTo = first + read.length;
    // The fold closes the lots it was not given only when there were none to give.
    if (firstAfter > readUpTo && readUpTo < next) throw new Error(`lots of ${symbol} closed unread`);
    const closedBelow = Math.min(firstAfter, next);
    if (closedBelow > first) writes.closed.push({ symbol, seq: closedBelow });
    if (firstAfter < readUpTo) {
      const [amount, cost] = left[0]!;
      const [was, wasCost] = read[firstAfter - first]!;
      if (!new D(amount).eq(was) || !new D(cost).eq(wasCost))
        writes.changed.push({ symbol, seq: firstAfter, amount, cost });
    }
    for (let seq = Math.max(firstAfter, next); seq < nextAfter; seq++) {
      const [amount, cost] = left[left.length - (nextAfter - seq)]!;
      writes.opened.push({ symbol, seq, amount, cost });
    }
  }
  return writes;
}

/** Every open lot of a state that holds them all (`stateOfFills`, or a state from before decision 930). */
export function allLots(state: MetricsState): StoredLot[] {
  return Object.entries(state.lots).flatMap(([symbol, lots]) => {
    const [first] = state.numbers[symbol] ?? [0, 0];
    return lots.map(([amount, cost], k) => ({ symbol, seq: first + k, amount, cost }));
  });
}

/**
 * A state stored before decision 930 holds its open lots and no numbers: numbers them from 0 (in
 * place) and answers them, to be stored apart. Undefined for a state of today.
 */
export function carryOverLots(state: MetricsState): StoredLot[] | undefined {
  if (state.numbers) return undefined;
  state.numbers = Object.fromEntries(Object.entries(state.lots).map(([symbol, lots]) => [symbol, [0, lots.length]]));
  return allLots(state);
}

/** The state as stored with the strategy: without its lots, which are stored apart. */
export const withoutLots = (state: MetricsState): MetricsState => ({ ...state, lots: {} });
