// The market overview computed from 24 h tickers of trading pairs: movers, trending pairs, heatmap,
// volume distribution, activity and aggregates. Pure functions; sums and shares with decimal.js.
// Volumes of pairs in different quote assets are made comparable by valuing them in USDT, the
// reference quote, at the last price of QUOTE/USDT (or 1 / USDT/QUOTE); pairs whose quote has no such
// price are left out of USDT totals and counted as unpriced, never given an invented value.
import { Decimal } from 'decimal.js';
import type { PairTicker } from './market.types.ts';

export const REFERENCE_QUOTE = 'USDT';

/** Quote asset → its value in USDT, from the pairs' last prices. */
export function quoteRates(pairs: readonly PairTicker[]): Map<string, Decimal> {
  const rates = new Map<string, Decimal>([[REFERENCE_QUOTE, new Decimal(1)]]);
  for (const pair of pairs) {
    const price = new Decimal(pair.lastPrice);
    if (price.isZero()) continue;
    if (pair.quote === REFERENCE_QUOTE && !rates.has(pair.base)) rates.set(pair.base, price);
    else if (pair.base === REFERENCE_QUOTE && !rates.has(pair.quote)) rates.set(pair.quote, new Decimal(1).div(price));
  }
  return rates;
}

/** The pair's 24 h quote volume in USDT, or undefined when its quote asset has no USDT price. */
function usdtVolume(pair: PairTicker, rates: ReadonlyMap<string, Decimal>): Decimal | undefined {
  const rate = rates.get(pair.quote);
  return rate ? new Decimal(pair.quoteVolume).mul(rate) : undefined;
}

const byNumber = (value: (p: PairTicker) => number, direction: 1 | -1) => (a: PairTicker, b: PairTicker) =>
  direction * (value(a) - value(b)) || a.symbol.localeCompare(b.symbol);

const change = (p: PairTicker) => Number(p.priceChangePercent);
const traded = (pairs: readonly PairTicker[]) => pairs.filter((p) => p.count > 0);

function share(part: Decimal, total: Decimal): number {
  return total.isZero() ? 0 : part.div(total).mul(100).toDecimalPlaces(4).toNumber();
}

/** Pairs with a USDT value, the most traded (by USDT quote volume) first. */
export function topByQuoteVolume(pairs: readonly PairTicker[], rates: ReadonlyMap<string, Decimal>, limit: number) {
  return pairs
    .map((pair) => ({ pair, value: usdtVolume(pair, rates) }))
    .filter((row): row is { pair: PairTicker; value: Decimal } => row.value !== undefined)
    .sort((a, b) => b.value.comparedTo(a.value) || a.pair.symbol.localeCompare(b.pair.symbol))
    .slice(0, limit)
    .map((row) => row.pair);
}

/** Gainers (change > 0, biggest first) and losers (change < 0, biggest fall first) among traded pairs. */
export function movers(pairs: readonly PairTicker[], limit: number) {
  const universe = traded(pairs);
  return {
    universe: universe.length,
    gainers: universe
      .filter((p) => change(p) > 0)
      .sort(byNumber(change, -1))
      .slice(0, limit),
    losers: universe
      .filter((p) => change(p) < 0)
      .sort(byNumber(change, 1))
      .slice(0, limit),
  };
}

/** Trending score: 24 h trades × |24 h change %|: pairs that move a lot and are traded a lot. */
export function trendingScore(pair: PairTicker): number {
  return new Decimal(pair.count).mul(new Decimal(pair.priceChangePercent).abs()).toNumber();
}

export function trending(pairs: readonly PairTicker[], limit: number) {
  return traded(pairs)
    .map((pair) => ({ pair, score: trendingScore(pair) }))
    .filter((row) => row.score > 0)
    .sort((a, b) => b.score - a.score || a.pair.symbol.localeCompare(b.pair.symbol))
    .slice(0, limit);
}

/** USDT pairs as heatmap tiles: size = 24 h quote volume in USDT; shares add up to the tiles shown. */
export function heatmap(pairs: readonly PairTicker[], limit: number) {
  const tiles = traded(pairs)
    .filter((p) => p.quote === REFERENCE_QUOTE)
    .map((pair) => ({ pair, size: new Decimal(pair.quoteVolume) }))
    .sort((a, b) => b.size.comparedTo(a.size) || a.pair.symbol.localeCompare(b.pair.symbol))
    .slice(0, limit);
  const total = Decimal.sum(0, ...tiles.map((t) => t.size));
  return { total, tiles: tiles.map((t) => ({ ...t, share: share(t.size, total) })) };
}

interface Bucket {
  key: string;
  volume: Decimal;
  pairs: number;
  trades: number;
}

function bucketsBy(pairs: readonly PairTicker[], rates: ReadonlyMap<string, Decimal>, key: (p: PairTicker) => string) {
  const buckets = new Map<string, Bucket>();
  let total = new Decimal(0);
  let unpriced = 0;
  for (const pair of pairs) {
    const value = usdtVolume(pair, rates);
    if (!value) {
      unpriced += 1;
      continue;
    }
    const name = key(pair);
    const bucket = buckets.get(name) ?? { key: name, volume: new Decimal(0), pairs: 0, trades: 0 };
    bucket.volume = bucket.volume.add(value);
    bucket.pairs += 1;
    bucket.trades += pair.count;
    buckets.set(name, bucket);
    total = total.add(value);
  }
  const sorted = [...buckets.values()].sort((a, b) => b.volume.comparedTo(a.volume) || a.key.localeCompare(b.key));
  return { total, sorted, unpriced };
}

/** Share of the 24 h USDT-valued quote volume by base asset (top `top`, the rest as one bucket) and by quote asset. */
export function volumeDistribution(pairs: readonly PairTicker[], rates: ReadonlyMap<string, Decimal>, top: number) {
  const byBase = bucketsBy(traded(pairs), rates, (p) => p.base);
  const byQuote = bucketsBy(traded(pairs), rates, (p) => p.quote);
  const rest = byBase.sorted.slice(top);
  const otherVolume = Decimal.sum(0, ...rest.map((b) => b.volume));
  return {
    total: byBase.total,
    unpriced: byBase.unpriced,
    assets: byBase.sorted.slice(0, top).map((b) => ({ ...b, share: share(b.volume, byBase.total) })),
    other: {
      volume: otherVolume,
      share: share(otherVolume, byBase.total),
      assets: rest.length,
      pairs: rest.reduce((n, b) => n + b.pairs, 0),
    },
    quotes: byQuote.sorted.map((b) => ({ ...b, share: share(b.volume, byQuote.total) })),
  };
}

/** Trade counts and volume: totals, the most traded pairs, and trades by quote asset. */
export function activity(pairs: readonly PairTicker[], rates: ReadonlyMap<string, Decimal>, top: number) {
  const active = traded(pairs);
  const totalTrades = active.reduce((n, p) => n + p.count, 0);
  const byQuote = new Map<string, number>();
  for (const pair of active) byQuote.set(pair.quote, (byQuote.get(pair.quote) ?? 0) + pair.count);
  return {
    totalTrades,
    activePairs: active.length,
    totalUsdtVolume: Decimal.sum(0, ...active.map((p) => usdtVolume(p, rates) ?? 0)),
    mostTraded: [...active].sort(byNumber((p) => p.count, -1)).slice(0, top),
    quotes: [...byQuote.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([quote, trades]) => ({ quote, trades, share: share(new Decimal(trades), new Decimal(totalTrades)) })),
  };
}

/** Breadth of the venue's market over 24 h. */
export function aggregates(pairs: readonly PairTicker[], rates: ReadonlyMap<string, Decimal>) {
  const active = traded(pairs);
  const changes = active.map((p) => new Decimal(p.priceChangePercent));
  return {
    pairsTrading: pairs.length,
    pairsTraded: active.length,
    totalTrades: active.reduce((n, p) => n + p.count, 0),
    totalUsdtVolume: Decimal.sum(0, ...active.map((p) => usdtVolume(p, rates) ?? 0)),
    gainers: changes.filter((c) => c.gt(0)).length,
    losers: changes.filter((c) => c.lt(0)).length,
    unchanged: changes.filter((c) => c.isZero()).length,
    averageChangePercent:
      changes.length === 0
        ? 0
        : Decimal.sum(...changes)
            .div(changes.length)
            .toDecimalPlaces(4)
            .toNumber(),
  };
}
