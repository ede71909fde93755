import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { roundTrips, strategyMetrics, type MetricsFill } from './metrics.domain.ts';

let sequence = 0;
const fill = (
  orderId: string,
  side: 'buy' | 'sell',
  amount: string,
  price: string,
  minute: number,
  fee: [string, string | null] = ['0', null],
): MetricsFill => ({
  tradeId: `paper:${String(++sequence).padStart(4, '0')}`,
  orderId,
  symbol: 'BTC/USDT',
  side,
  price,
  amount,
  fee: fee[0],
  feeCurrency: fee[1],
  at: new Date(Date.UTC(2026, 0, 1, 0, minute)),
});

describe('strategy metrics from fills', () => {
  it('counts fees on both sides: a win, then a loss (figures worked by hand)', () => {
    const fills = [
      // Buys 1 BTC for 100 USDT, the fee taken in BTC: 0.999 BTC cost 100.
      fill('b1', 'buy', '1', '100', 1, ['0.001', 'BTC']),
      // Sells those 0.999 at 110: 109.89 less 0.10989 fee = 109.78011; net +9.78011.
      fill('s1', 'sell', '0.999', '110', 2, ['0.10989', 'USDT']),
      // Buys 1 at 110 with a 0.11 USDT fee: cost 110.11 (the peak capital).
      fill('b2', 'buy', '1', '110', 3, ['0.11', 'USDT']),
      // Sells it at 100 with a 0.1 fee: 99.9; net −10.21.
      fill('s2', 'sell', '1', '100', 4, ['0.1', 'USDT']),
    ];
    assert.deepEqual(
      roundTrips(fills).trips.map((t) => [t.orderId, t.net.toString()]),
      [
        ['s1', '9.78011'],
        ['s2', '-10.21'],
      ],
    );
    // Equity 110.11 → 119.89011 → 109.68011: drawdown 10.21 / 119.89011 = 8.5161 %,
    // return −0.42989 / 110.11 = −0.3904 %.
    assert.deepEqual(strategyMetrics(fills), {
      paper_trades: 2,
      win_rate: 0.5,
      return_pct: -0.3904,
      max_drawdown_pct: 8.5161,
    });
  });

  it('closes lots oldest first; one sell order is one round trip whatever its fills', () => {
    const fills = [
      fill('b1', 'buy', '2', '10', 1),
      fill('b2', 'buy', '1', '13', 2),
      // One order in two fills: closes 2 @ 10 and 0.5 @ 13 (cost 26.5) for 30: +3.5.
      fill('s1', 'sell', '1.5', '12', 3),
      fill('s1', 'sell', '1', '12', 4),
      // Closes the last 0.5 @ 13 for 7: +0.5; the other 0.5 it sells had no lot and counts nowhere.
      fill('s2', 'sell', '1', '14', 5),
    ];
    assert.deepEqual(
      roundTrips(fills).trips.map((t) => [t.orderId, t.amount.toString(), t.net.toString()]),
      [
        ['s1', '2.5', '3.5'],
        ['s2', '0.5', '0.5'],
      ],
    );
    // Peak capital 33 (both buys open at once); +4 on it is 12.1212 %; no fall.
    assert.deepEqual(strategyMetrics(fills), {
      paper_trades: 2,
      win_rate: 1,
      return_pct: 12.1212,
      max_drawdown_pct: 0,
    });
  });

  it('keeps symbols apart and takes fills in time order, whatever order they are given in', () => {
    const eth = (f: MetricsFill): MetricsFill => ({ ...f, symbol: 'ETH/USDT' });
    const fills = [
      fill('s1', 'sell', '1', '9', 3),
      eth(fill('e1', 'buy', '1', '5', 1)),
      fill('b1', 'buy', '1', '10', 2),
    ];
    // The ETH lot does not cover the BTC sell: BTC 1 @ 10 sold @ 9 is the one trip, a loss.
    assert.deepEqual(strategyMetrics(fills), {
      paper_trades: 1,
      win_rate: 0,
      return_pct: -6.6667,
      max_drawdown_pct: 6.6667,
    });
  });

  it('knows only the count without a closed round trip', () => {
    assert.deepEqual(strategyMetrics([]), { paper_trades: 0 });
    assert.deepEqual(strategyMetrics([fill('b1', 'buy', '1', '10', 1), fill('s0', 'sell', '0', '10', 2)]), {
      paper_trades: 0,
    });
  });
});
