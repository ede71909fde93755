import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inFigureOrder, strategyMetrics, type MetricsFill } from './metrics.domain.ts';
import { foldFills, metricsOf, stateOfFills, type MetricsState } from './metrics-fold.domain.ts';

/** A seeded generator (mulberry32): the same sequences on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Buys and sells on two markets, prices wandering, fees in either asset, sell orders of one to three fills. */
function fills(seed: number, n: number): MetricsFill[] {
  const next = random(seed);
  const out: MetricsFill[] = [];
  let price = 100;
  for (let i = 0; out.length < n; i++) {
    price = Math.max(1, price * (1 + (next() - 0.5) / 10));
    const symbol = next() < 0.7 ? 'BTC/USDT' : 'ETH/USDT';
    const side = next() < 0.5 ? 'buy' : 'sell';
    const legs = side === 'sell' ? 1 + Math.floor(next() * 3) : 1;
    for (let leg = 0; leg < legs; leg++) {
      const feeInBase = next() < 0.3;
      out.push({
        tradeId: `paper:${String(out.length).padStart(6, '0')}`,
        orderId: `o${i}`,
        symbol,
        side,
        price: (price * (1 + leg / 200)).toFixed(2),
        amount: (0.1 + next()).toFixed(4),
        fee: feeInBase ? '0.0001' : '0.05',
        feeCurrency: feeInBase ? symbol.split('/')[0]! : 'USDT',
        at: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
      });
    }
  }
  return out;
}

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
      const all = fills(seed, 120);
      for (const size of [1, 3]) {
        for (let n = size; n <= all.length; n += 17) {
          const { state } = incremental(all.slice(0, n), size);
          assert.deepEqual(metricsOf(state), strategyMetrics(all.slice(0, n)), `seed ${seed}, ${n} fills by ${size}`);
        }
      }
    }
  });

  it('computes again from all the fills only when the fold cannot give the same figures', () => {
    const all = fills(7, 300);
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
