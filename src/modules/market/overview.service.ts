// The market overview: top assets and global figures (CoinGecko), and the views computed from
// Binance's 24 h tickers (docs/decisions/043 has the rules).
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from 'pino';
import {
  activity,
  aggregates,
  heatmap,
  movers,
  REFERENCE_QUOTE,
  trending,
  volumeDistribution,
} from './rankings.domain.ts';
import type { MarketData } from './market-data.ts';
import type {
  ActivityResponse,
  HeatmapResponse,
  MoversResponse,
  StatsResponse,
  TopResponse,
  TrendingResponse,
  VolumeDistributionResponse,
} from './overview.schemas.ts';
import { TRENDING_RULE } from './overview.schemas.ts';
import type { SymbolIndex } from './symbols.domain.ts';
import type { TopAsset } from './market.types.ts';
import { freshness, joinSources, marketPair, stamped } from './answers.ts';

/** Base assets named in the volume distribution; the rest are summed as `other`. */
const DISTRIBUTION_ASSETS = 20;
/** Pairs listed in activity's `most_traded`. */
const MOST_TRADED = 20;

function topRow(a: TopAsset, i: number, index: SymbolIndex | undefined) {
  const pair = index?.byPair.get(`${a.symbol}/${REFERENCE_QUOTE}`);
  return {
    rank: a.marketCapRank ?? i + 1,
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

export function createOverviewService(deps: {
  data: MarketData;
  clock: Clock;
  logger: Logger;
  spotSource: string;
  assetSource: string;
}) {
  const { data, clock, logger, spotSource, assetSource } = deps;
  const now = () => clock.now().getTime();

  /** The pairs view; every operation below shares its one cached upstream call. */
  async function view<R extends object>(
    name: string,
    compute: (t: Awaited<ReturnType<MarketData['pairTickers']>>) => R,
  ) {
    const tickers = await data.pairTickers();
    const result = data.derive(name, [tickers.rows], () => compute(tickers));
    return stamped(data.derive, name, result, freshness(spotSource, now(), tickers.served));
  }

  /** The symbol index when Binance can give it; top assets are still answered when it cannot. */
  async function indexIfAvailable(): Promise<SymbolIndex | undefined> {
    try {
      return (await data.symbolIndex()).index;
    } catch (error) {
      logger.warn({ err: error }, 'symbol list unavailable; top assets answered without pairs');
      return undefined;
    }
  }

  return {
    async top(limit: number): Promise<TopResponse> {
      const [served, index] = await Promise.all([data.topAssets(limit), indexIfAvailable()]);
      const body = data.derive(`top:${limit}`, [served.value, index], () => {
        const assets = served.value.map((asset, i) => topRow(asset, i, index));
        return { assets, count: assets.length, vs_currency: 'usd' };
      });
      return stamped(data.derive, `top:${limit}`, body, freshness(assetSource, now(), served));
    },

    async stats(): Promise<StatsResponse> {
      const [global, tickers] = await Promise.all([data.globalFigures(), data.pairTickers()]);
      const body = data.derive('stats', [global.value, tickers.rows], () => {
        const g = global.value;
        const venue = aggregates(tickers.rows, tickers.rates);
        return {
          global: {
            total_market_cap_usd: g.totalMarketCapUsd,
            total_volume_usd: g.totalVolumeUsd,
            market_cap_change_percent_24h: g.marketCapChangePercentage24hUsd,
            btc_dominance: g.marketCapPercentage.btc ?? null,
            eth_dominance: g.marketCapPercentage.eth ?? null,
            market_cap_percentage: g.marketCapPercentage,
            active_cryptocurrencies: g.activeCryptocurrencies,
            markets: g.markets,
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
        };
      });
      return stamped(
        data.derive,
        'stats',
        body,
        freshness(joinSources(assetSource, spotSource), now(), global, tickers.served),
      );
    },

    async movers(limit: number): Promise<MoversResponse> {
      return view(`movers:${limit}`, (t) => {
        const m = movers(t.rows, limit);
        return { gainers: m.gainers.map(marketPair), losers: m.losers.map(marketPair), universe: m.universe };
      });
    },

    async heatmap(limit: number): Promise<HeatmapResponse> {
      return view(`heatmap:${limit}`, (t) => {
        const map = heatmap(t.rows, limit);
        const tiles = map.tiles.map((tile) => ({
          asset: tile.pair.base,
          ...marketPair(tile.pair),
          size: tile.size.toNumber(),
          share_percent: tile.share,
        }));
        return { tiles, count: tiles.length, size_metric: 'quote_volume_usdt', total_size: map.total.toNumber() };
      });
    },

    async volumeDistribution(): Promise<VolumeDistributionResponse> {
      return view('volume-distribution', (t) => {
        const d = volumeDistribution(t.rows, t.rates, DISTRIBUTION_ASSETS);
        const bucket = (b: { volume: { toNumber(): number }; share: number; pairs: number }) => ({
          quote_volume_usdt: b.volume.toNumber(),
          share_percent: b.share,
          pairs: b.pairs,
        });
        return {
          reference_quote: REFERENCE_QUOTE,
          total_quote_volume_usdt: d.total.toNumber(),
          assets: d.assets.map((a) => ({ asset: a.key, ...bucket(a) })),
          other: { ...bucket(d.other), assets: d.other.assets },
          quotes: d.quotes.map((q) => ({ quote: q.key, ...bucket(q) })),
          unpriced_pairs: d.unpriced,
        };
      });
    },

    async activity(): Promise<ActivityResponse> {
      return view('activity', (t) => {
        const a = activity(t.rows, t.rates, MOST_TRADED);
        return {
          total_trades_24h: a.totalTrades,
          active_pairs: a.activePairs,
          total_quote_volume_usdt: a.totalUsdtVolume.toNumber(),
          most_traded: a.mostTraded.map(marketPair),
          by_quote: a.quotes.map((q) => ({ quote: q.quote, trades: q.trades, share_percent: q.share })),
        };
      });
    },

    async trending(limit: number): Promise<TrendingResponse> {
      return view(`trending:${limit}`, (t) => {
        const pairs = trending(t.rows, limit).map((row, i) => ({
          rank: i + 1,
          ...marketPair(row.pair),
          score: row.score,
        }));
        return { pairs, count: pairs.length, rule: TRENDING_RULE };
      });
    },
  };
}

export type OverviewService = ReturnType<typeof createOverviewService>;
