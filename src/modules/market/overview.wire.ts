// The market overview on the wire: the overview service returns the assets and the rankings of the
// pure domain (decimals, venue strings), and the routes answer them through these mappers, each typed
// by its response schema and mapped once per distinct data (see market.wire.ts).
import type { PairTicker } from './market.types.ts';
import { answerWire, num } from './market.wire.ts';
import {
  TRENDING_RULE,
  type ActivityResponse,
  type HeatmapResponse,
  type MoversResponse,
  type StatsResponse,
  type TopResponse,
  type TrendingResponse,
  type VolumeDistributionResponse,
} from './overview.schemas.ts';
import type {
  Activity,
  Heatmap,
  MarketStats,
  Movers,
  RankedAsset,
  Trending,
  VolumeDistribution,
} from './overview.service.ts';
import { REFERENCE_QUOTE } from './rankings.domain.ts';

function marketPair(p: PairTicker) {
  return {
    symbol: p.symbol,
    base: p.base,
    quote: p.quote,
    price: num(p.lastPrice),
    change_percent: num(p.priceChangePercent),
    volume: num(p.volume),
    quote_volume: num(p.quoteVolume),
    trades: p.count,
  };
}

function topRow({ rank, asset: a, pair }: RankedAsset): TopResponse['assets'][number] {
  return {
    rank,
    id: a.id,
    asset: a.symbol,
    name: a.name,
    symbol: pair?.symbol ?? null,
    base: a.symbol,
    quote: pair ? pair.quote : null,
    image: a.image,
    price: a.currentPrice,
    market_cap: a.marketCap,
    volume_24h: a.totalVolume,
    high_24h: a.high24h,
    low_24h: a.low24h,
    change_24h: a.priceChange24h,
    change_percent_24h: a.priceChangePercentage24h,
    circulating_supply: a.circulatingSupply,
    total_supply: a.totalSupply,
    max_supply: a.maxSupply,
    ath: a.ath,
    ath_date: a.athDate,
    last_updated: a.lastUpdated,
  };
}

export const topWire = answerWire<RankedAsset[], TopResponse>((ranked) => {
  const assets = ranked.map(topRow);
  return { assets, count: assets.length, vs_currency: 'usd' };
});

export const statsWire = answerWire<MarketStats, StatsResponse>(({ global: g, venue }) => ({
  global: {
    total_market_cap_usd: g.totalMarketCapUsd,
    total_volume_usd: g.totalVolumeUsd,
    market_cap_change_percent_24h: g.marketCapChangePercentage24hUsd,
    btc_dominance: g.marketCapPercentage.btc ?? null,
    eth_dominance: g.marketCapPercentage.eth ?? null,
    market_cap_percentage: g.marketCapPercentage,
    active_cryptocurrencies: g.activeCryptocurrencies,
    markets: g.markets,
    // CoinGecko gives Unix seconds.
    updated_at: g.updatedAt === null ? null : new Date(g.updatedAt * 1000).toISOString(),
  },
  venue: {
    pairs_trading: venue.pairsTrading,
    pairs_traded_24h: venue.pairsTraded,
    total_trades_24h: venue.totalTrades,
    total_quote_volume_usdt: venue.totalUsdtVolume.toNumber(),
    gainers: venue.gainers,
    losers: venue.losers,
    unchanged: venue.unchanged,
    average_change_percent: venue.averageChangePercent,
  },
}));

export const moversWire = answerWire<Movers, MoversResponse>((m) => ({
  gainers: m.gainers.map(marketPair),
  losers: m.losers.map(marketPair),
  universe: m.universe,
}));

export const heatmapWire = answerWire<Heatmap, HeatmapResponse>((map) => {
  const tiles = map.tiles.map((tile) => ({
    asset: tile.pair.base,
    ...marketPair(tile.pair),
    size: tile.size.toNumber(),
    share_percent: tile.share,
  }));
  return { tiles, count: tiles.length, size_metric: 'quote_volume_usdt', total_size: map.total.toNumber() };
});

const bucket = (b: { volume: { toNumber(): number }; share: number; pairs: number }) => ({
  quote_volume_usdt: b.volume.toNumber(),
  share_percent: b.share,
  pairs: b.pairs,
});

export const volumeDistributionWire = answerWire<VolumeDistribution, VolumeDistributionResponse>((d) => ({
  reference_quote: REFERENCE_QUOTE,
  total_quote_volume_usdt: d.total.toNumber(),
  assets: d.assets.map((a) => ({ asset: a.key, ...bucket(a) })),
  other: { ...bucket(d.other), assets: d.other.assets },
  quotes: d.quotes.map((q) => ({ quote: q.key, ...bucket(q) })),
  unpriced_pairs: d.unpriced,
}));

export const activityWire = answerWire<Activity, ActivityResponse>((a) => ({
  total_trades_24h: a.totalTrades,
  active_pairs: a.activePairs,
  total_quote_volume_usdt: a.totalUsdtVolume.toNumber(),
  most_traded: a.mostTraded.map(marketPair),
  by_quote: a.quotes.map((q) => ({ quote: q.quote, trades: q.trades, share_percent: q.share })),
}));

export const trendingWire = answerWire<Trending, TrendingResponse>((ranking) => {
  const pairs = ranking.map((row, i) => ({ rank: i + 1, ...marketPair(row.pair), score: row.score }));
  return { pairs, count: pairs.length, rule: TRENDING_RULE };
});
