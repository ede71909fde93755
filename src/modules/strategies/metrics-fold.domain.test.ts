import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inFigureOrder, strategyMetrics, type MetricsFill } from './metrics.domain.ts';
import { foldFills, metricsOf, stateOfFills, type MetricsState } from './metrics-fold.domain.ts';
import { randomFills } from '../../../test/helpers/random-fills.ts';

/** Folds `all` in reports of `size` through JSON, as stored; a report the fold refuses is computed from all. */
function incremental(all: readonly MetricsFill[], size: number): { state: MetricsState; rebuilt: number } {
  let state: MetricsState | null = null;
  let rebuilt = 0;
  for (let i = 0; i < all.length; i += size) {
    const report = inFigureOrder(all.slice(i, i + size));
    const earlier = new Set(all.slice(0, i).map((f) => f.orderId));
    const copy: MetricsState | null = state && JSON.parse(JSON.stringify(state));
    if (copy && foldFills(copy, report, new Set(report.map((f) => f.orderId).filter((o) => earlier.has(o))))) {
      state = copy;
    } else {
      state = stateOfFills(all.slice(0, i + size));
      rebuilt += 1;
    }
  }
  return { state: state!, rebuilt };
}

describe('strategy figures kept fill by fill', () => {
  it('equal the figures computed from all the fills, after every report, on 40 random histories', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const all = randomFills(seed, 120);
      for (const size of [1, 3]) {
        for (let n = size; n <= all.length; n += 17) {
          const { state } = incremental(all.slice(0, n), size);
          assert.deepEqual(metricsOf(state), strategyMetrics(all.slice(0, n)), `seed ${seed}, ${n} fills by ${size}`);
        }
      }
    }
  });

  it('computes again from all the fills only when the fold cannot give the same figures', () => {
    const all = randomFills(7, 300);
    // The first report has no state; the fills of each order come together, so none other is refused.
    assert.equal(incremental(all, 1).rebuilt, 1);
    // A fill ordered before one counted already is refused.
    const state = stateOfFills(all.slice(0, 10));
    assert.equal(foldFills(state, [all[5]!], new Set()), false);
  });

  it('refuses a later fill of an order whose round trip is not the last', () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
    const leg = (tradeId: string, orderId: string, side: 'buy' | 'sell', minute: number): MetricsFill => ({
      tradeId,
      orderId,
      symbol: 'BTC/USDT',
      side,
      price: side === 'buy' ? '100' : '101',
      amount: '1',
      fee: '0',
      feeCurrency: null,
      at: at(minute),
    });
    const history = [
      leg('t1', 'b', 'buy', 1),
      leg('t2', 'b2', 'buy', 2),
      leg('t2b', 'b3', 'buy', 2),
      leg('t3', 'x', 'sell', 3),
      leg('t4', 'y', 'sell', 4),
    ];
    // Order x closes a lot again after y: its round trip moves after y's, so the curve changes before its end.
    assert.equal(foldFills(stateOfFills(history), [leg('t5', 'x', 'sell', 5)], new Set(['x'])), false);
    // The last round trip's order may grow it.
    assert.equal(foldFills(stateOfFills(history), [leg('t5', 'y', 'sell', 5)], new Set(['y'])), true);
  });
});
