import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inFigureOrder, strategyMetrics, type MetricsFill } from './metrics.domain.ts';
import { foldFills, metricsOf, stateOfFills, type MetricsState } from './metrics-fold.domain.ts';
import {
  allLots,
  carryOverLots,
  type LotWindow,
  lotDemand,
  lotWrites,
  readEnough,
  type StoredLot,
  withoutLots,
} from './metrics-lots.domain.ts';
import { lotHeavyMix, randomFills } from '../../../test/helpers/random-fills.ts';

/** The lots table, in memory: symbol → seq → [units, cost]. */
type Table = Map<string, Map<number, [string, string]>>;

const inKeyOrder = (lots: StoredLot[]): StoredLot[] =>
  lots.sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : a.seq - b.seq));

const rowsOf = (table: Table): StoredLot[] =>
  inKeyOrder(
    [...table].flatMap(([symbol, lots]) => [...lots].map(([seq, [amount, cost]]) => ({ symbol, seq, amount, cost }))),
  );

function replace(table: Table, lots: readonly StoredLot[]): void {
  table.clear();
  for (const lot of lots) {
    const rows = table.get(lot.symbol) ?? new Map();
    table.set(lot.symbol, rows.set(lot.seq, [lot.amount, lot.cost]));
  }
}

/**
 * Folds `all` in reports of `size` as recordFills does: the state through JSON without its lots, the
 * lots in `table`, read from the oldest one at a time until readEnough, the writes applied. Checks the
 * figures and the lots against the computation from all the fills after every report.
 */
function throughTable(
  all: readonly MetricsFill[],
  size: number,
  label: string,
  checkEach = true,
): { read: number; closed: number } {
  const table: Table = new Map();
  let stored: MetricsState | null = null;
  let read = 0;
  let closed = 0;
  for (let i = 0; i < all.length; i += size) {
    const report = inFigureOrder(all.slice(i, i + size));
    const upTo = all.slice(0, i + size);
    let state: MetricsState | null = stored && JSON.parse(JSON.stringify(stored));
    const windows = new Map<string, LotWindow>();
    for (const [symbol, demand] of state ? lotDemand(report) : []) {
      const window: LotWindow = { numbers: state!.numbers[symbol] ?? [0, 0], read: [] };
      while (!readEnough(window, demand))
        window.read.push(table.get(symbol)!.get(window.numbers[0] + window.read.length)!);
      state!.lots[symbol] = [...window.read];
      windows.set(symbol, window);
      read += window.read.length;
    }
    const earlier = new Set(all.slice(0, i).map((f) => f.orderId));
    if (state && foldFills(state, report, new Set(report.map((f) => f.orderId).filter((o) => earlier.has(o))))) {
      const writes = lotWrites(windows, state);
      for (const { symbol, seq } of writes.closed) {
        for (const k of table.get(symbol)!.keys()) {
          if (k < seq) {
            table.get(symbol)!.delete(k);
            closed += 1;
          }
        }
      }
      replace(table, [...rowsOf(table), ...writes.changed, ...writes.opened]);
    } else {
      state = stateOfFills(upTo);
      replace(table, allLots(state));
    }
    stored = withoutLots(state);
    if (!checkEach && i + size < all.length) continue;
    const whole = stateOfFills(upTo);
    assert.deepEqual(metricsOf(stored), strategyMetrics(upTo), `${label}: ${upTo.length} fills`);
    assert.deepEqual(stored.numbers, whole.numbers, `${label}: ${upTo.length} fills`);
    assert.deepEqual(rowsOf(table), inKeyOrder(allLots(whole)), `${label}: ${upTo.length} fills`);
  }
  return { read, closed };
}

describe('open lots stored apart from the figures (decision 930)', () => {
  it('give the figures and the lots of the computation from all the fills, after every report, on 12 random histories', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const all = randomFills(seed, 120, lotHeavyMix());
      for (const size of [1, 4]) throughTable(all, size, `seed ${seed} by ${size}`);
    }
  });

  it('read only the lots a report closes, and one more a symbol', () => {
    const all = randomFills(99, 1_000, lotHeavyMix(0));
    const { read, closed } = throughTable(all, 1, 'reads', false);
    // One fill a report: each reads what it closes and at most the next lot of its symbol.
    assert.ok(read <= closed + all.length, `read ${read}, closed ${closed}, reports ${all.length}`);
    // Open lots pile up (three buys in four orders, small sells): reading them all would read far more.
    const open = allLots(stateOfFills(all)).length;
    assert.ok(open > 150, `open lots ${open}`);
    assert.ok(read < 2 * all.length, `read ${read}`);
  });

  it('are computed from all the fills in one pass: 20,000 buys in seconds, not minutes', () => {
    const buys = Array.from(
      { length: 20_000 },
      (_, i): MetricsFill => ({
        tradeId: `paper:${i}`,
        orderId: `o${i}`,
        symbol: 'BTC/USDT',
        side: 'buy',
        price: '100',
        amount: '0.2',
        fee: '0.05',
        feeCurrency: 'USDT',
        at: new Date(Date.UTC(2026, 0, 1) + i * 1_000),
      }),
    );
    const started = performance.now();
    const state = stateOfFills(buys);
    // Each fill turned every open lot into decimals and back: 5,000 buys took 34 s, 20,000 would take minutes.
    const took = performance.now() - started;
    assert.equal(allLots(state).length, 20_000);
    assert.ok(took < 30_000, `${took} ms`);
  });

  it('a state stored with its lots (before decision 930) gives them up, numbered from 0, and folds on', () => {
    const all = randomFills(5, 80, lotHeavyMix());
    const before = stateOfFills(all.slice(0, 40));
    const old = JSON.parse(JSON.stringify(before)) as Partial<MetricsState>;
    delete old.numbers;
    for (const lots of Object.values(old.lots!)) assert.ok(lots.length > 0);
    const state = old as MetricsState;
    const carried = carryOverLots(state)!;
    assert.equal(carried.length, Object.values(before.lots).flat().length);
    assert.deepEqual(
      carried.filter((lot) => lot.symbol === 'BTC/USDT').map((lot) => lot.seq),
      before.lots['BTC/USDT']!.map((_, k) => k),
    );
    assert.equal(carryOverLots(state), undefined);
    // All lots in memory, as after the carry: the fold goes on to the figures of all the fills.
    const earlier = new Set(all.slice(0, 40).map((f) => f.orderId));
    assert.ok(foldFills(state, [all[40]!], new Set([all[40]!.orderId].filter((o) => earlier.has(o)))));
    assert.deepEqual(metricsOf(state), strategyMetrics(all.slice(0, 41)));
  });
});
