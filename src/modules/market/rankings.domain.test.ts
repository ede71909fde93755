import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PairTicker } from './market.types.ts';
import {
  activity,
  aggregates,
  heatmap,
  movers,
  quoteRates,
  topByQuoteVolume,
  trending,
  trendingScore,
  volumeDistribution,
} from './rankings.domain.ts';

function pair(
  symbol: string,
  base: string,
  quote: string,
  price: string,
  change: string,
  quoteVolume: string,
  count: number,
): PairTicker {
  const zero = '0';
  return {
    symbol,
    base,
    quote,
    lastPrice: price,
    priceChangePercent: change,
    quoteVolume,
    count,
    openPrice: zero,
    highPrice: zero,
    lowPrice: zero,
    priceChange: zero,
    weightedAvgPrice: zero,
    bidPrice: zero,
    askPrice: zero,
    volume: '1',
    openTime: 0,
    closeTime: 0,
  };
}

const PAIRS = [
  pair('BTCUSDT', 'BTC', 'USDT', '50000', '2.000', '1000000.1', 100),
  pair('ETHBTC', 'ETH', 'BTC', '0.05', '-3.000', '10.00000001', 50),
  pair('USDTTRY', 'USDT', 'TRY', '40', '0.100', '4000000', 10),
  pair('ETHTRY', 'ETH', 'TRY', '100000', '-1.000', '8000000', 5),
  pair('XRPEUR', 'XRP', 'EUR', '0.5', '5.000', '999999', 7),
  pair('DEADUSDT', 'DEAD', 'USDT', '1', '0.000', '0', 0),
];

describe('market rankings', () => {
  it('values quote assets in USDT from QUOTE/USDT or the inverse USDT/QUOTE', () => {
    const rates = quoteRates(PAIRS);
    assert.equal(rates.get('USDT')!.toString(), '1');
    assert.equal(rates.get('BTC')!.toString(), '50000');
    assert.equal(rates.get('TRY')!.toString(), '0.025');
    assert.equal(rates.has('EUR'), false, 'no EUR/USDT price: never invented');
  });

  it('ranks by USDT quote volume and leaves unpriced pairs out', () => {
    assert.deepEqual(
      topByQuoteVolume(PAIRS, quoteRates(PAIRS), 10).map((p) => p.symbol),
      ['BTCUSDT', 'ETHBTC', 'ETHTRY', 'USDTTRY', 'DEADUSDT'],
    );
  });

  it('sums volumes exactly with decimals', () => {
    const distribution = volumeDistribution(PAIRS, quoteRates(PAIRS), 1);
    // 1000000.1 + 10.00000001 × 50000 + 8000000 × 0.025 + 4000000 × 0.025 (USDT is its own base here)
    assert.equal(distribution.total.toString(), '1800000.1005');
    assert.deepEqual(
      distribution.assets.map((a) => [a.key, a.volume.toString(), a.pairs]),
      [['BTC', '1000000.1', 1]],
    );
    assert.equal(distribution.other.assets, 2);
    assert.equal(distribution.unpriced, 1);
    assert.ok(Math.abs(distribution.assets[0]!.share + distribution.other.share - 100) < 0.001);
  });

  it('splits movers into rises and falls among traded pairs', () => {
    const m = movers(PAIRS, 2);
    assert.deepEqual(
      m.gainers.map((p) => p.symbol),
      ['XRPEUR', 'BTCUSDT'],
    );
    assert.deepEqual(
      m.losers.map((p) => p.symbol),
      ['ETHBTC', 'ETHTRY'],
    );
    assert.equal(m.universe, 5);
  });

  it('scores trending pairs as trades × |change %|', () => {
    assert.equal(trendingScore(PAIRS[1]!), 150);
    assert.deepEqual(
      trending(PAIRS, 3).map((r) => [r.pair.symbol, r.score]),
      [
        ['BTCUSDT', 200],
        ['ETHBTC', 150],
        ['XRPEUR', 35],
      ],
    );
  });

  it('builds heatmap tiles from USDT pairs only', () => {
    const map = heatmap(PAIRS, 10);
    assert.deepEqual(
      map.tiles.map((t) => [t.pair.symbol, t.share]),
      [['BTCUSDT', 100]],
    );
  });

  it('counts activity and breadth', () => {
    const a = activity(PAIRS, quoteRates(PAIRS), 2);
    assert.equal(a.totalTrades, 172);
    assert.deepEqual(
      a.mostTraded.map((p) => p.symbol),
      ['BTCUSDT', 'ETHBTC'],
    );
    assert.deepEqual(
      a.quotes.map((q) => q.quote),
      ['USDT', 'BTC', 'TRY', 'EUR'],
    );
    const b = aggregates(PAIRS, quoteRates(PAIRS));
    assert.deepEqual([b.pairsTrading, b.pairsTraded, b.gainers, b.losers, b.unchanged], [6, 5, 3, 2, 0]);
    assert.equal(b.averageChangePercent, 0.62);
  });
});
