import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { candleRequests, closeAt, outcomePct, priceWindow } from './intel-outcome.domain.ts';

const MIN = 60_000;

describe('intel outcome', () => {
  it('reads the price at t from the last candle closed by t, never one still open', () => {
    const t = new Date(Date.UTC(2025, 0, 1, 12, 0, 30));
    const candles = [
      { openTime: t.getTime() - 150_000, close: 100 }, // 11:58:00 → closed 11:59:00
      { openTime: t.getTime() - 90_000, close: 101 }, // 11:59:00 → closed 12:00:00
      { openTime: t.getTime() - 30_000, close: 999 }, // 12:00:00 → still open at 12:00:30
    ];
    assert.equal(closeAt(candles, t), 101);
    assert.equal(closeAt(candles.slice(2), t), null);
    assert.equal(closeAt([{ openTime: t.getTime() - 2 * MIN, close: 0 }], t), null);
    const edge = new Date(Date.UTC(2025, 0, 1, 12, 0, 0));
    assert.equal(closeAt([{ openTime: edge.getTime() - MIN, close: 7 }], edge), 7);
  });

  it('asks for a window that always holds that candle', () => {
    const t = new Date(Date.UTC(2025, 0, 1, 12, 0, 30));
    const { start, end } = priceWindow(t);
    assert.equal(end.getTime(), t.getTime());
    assert.equal(start.toISOString(), '2025-01-01T11:58:30.000Z');
  });

  it('prices points of one market close in time with one request, each point inside its window', () => {
    const t0 = Date.UTC(2025, 0, 1, 12, 0, 30);
    const at = (minutes: number) => new Date(t0 + minutes * MIN);
    const points = [
      { symbol: 'BTCUSDT', at: at(10) },
      { symbol: 'ETHUSDT', at: at(0) },
      { symbol: 'BTCUSDT', at: at(0) },
      { symbol: 'BTCUSDT', at: at(997) }, // the last minute one request of 1,000 candles still reaches
      { symbol: 'BTCUSDT', at: at(998) }, // one minute further: a request of its own
      { symbol: 'BTCUSDT', at: at(24 * 60) },
    ];
    const requests = candleRequests(points, 1000);
    assert.deepEqual(
      requests.map((r) => [r.symbol, r.points, r.limit]),
      [
        ['BTCUSDT', [2, 0, 3], 1000],
        ['BTCUSDT', [4, 5], 24 * 60 - 998 + 3],
        ['ETHUSDT', [1], 3],
      ],
    );
    for (const request of requests) {
      assert.ok(request.limit <= 1000);
      for (const i of request.points) {
        const own = priceWindow(points[i]!.at);
        assert.ok(request.start <= own.start && own.end <= request.end, `point ${i} inside its request`);
      }
    }
    assert.equal(requests[0]!.start.getTime(), at(-2).getTime());
    assert.equal(requests[0]!.end.getTime(), at(997).getTime());
    assert.deepEqual(candleRequests([]), []);
  });

  it('answers the market move in percent with its own sign', () => {
    assert.equal(outcomePct(100, 102.5), 2.5);
    assert.equal(outcomePct(200, 190), -5);
    assert.equal(outcomePct(3, 3), 0);
    assert.equal(outcomePct(3, 3.00001), 0.0003);
  });
});
