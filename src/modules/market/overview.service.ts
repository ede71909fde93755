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
import type { SymbolIndex } from './symbols.domain.ts';
import type { GlobalFigures, SymbolInfo, TopAsset } from './market.types.ts';
import { freshness, joinSources, stamped, type MarketAnswer } from './answers.ts';

/** Base assets named in the volume distribution; the rest are summed as `other`. */
const DISTRIBUTION_ASSETS = 20;
/** Pairs listed in activity's `most_traded`. */
const MOST_TRADED = 20;

/** An asset by market cap, with its rank and its USDT pair when Binance lists one. */
export interface RankedAsset {
  rank: number;
  asset: TopAsset;
  pair: SymbolInfo | null;
}

export interface MarketStats {
  global: GlobalFigures;
  venue: ReturnType<typeof aggregates>;
}

export type Movers = ReturnType<typeof movers>;
export type Heatmap = ReturnType<typeof heatmap>;
export type VolumeDistribution = ReturnType<typeof volumeDistribution>;
export type Activity = ReturnType<typeof activity>;
export type Trending = ReturnType<typeof trending>;

function ranked(a: TopAsset, i: number, index: SymbolIndex | undefined): RankedAsset {
  return {
    rank: a.marketCapRank ?? i + 1,
    asset: a,
    pair: index?.byPair.get(`${a.symbol}/${REFERENCE_QUOTE}`) ?? null,
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
    async top(limit: number): Promise<MarketAnswer<RankedAsset[]>> {
      const [served, index] = await Promise.all([data.topAssets(), indexIfAvailable()]);
      const assets = data.derive(`top:${limit}`, [served.value, index], () =>
        served.value.slice(0, limit).map((asset, i) => ranked(asset, i, index)),
      );
      return stamped(data.derive, `top:${limit}`, assets, freshness(assetSource, now(), served));
    },

    async stats(): Promise<MarketAnswer<MarketStats>> {
      const [global, tickers] = await Promise.all([data.globalFigures(), data.pairTickers()]);
      const stats = data.derive('stats', [global.value, tickers.rows], () => ({
        global: global.value,
        venue: aggregates(tickers.rows, tickers.rates),
      }));
      return stamped(
        data.derive,
        'stats',
        stats,
        freshness(joinSources(assetSource, spotSource), now(), global, tickers.served),
      );
    },

    movers: (limit: number): Promise<MarketAnswer<Movers>> => view(`movers:${limit}`, (t) => movers(t.rows, limit)),

    heatmap: (limit: number): Promise<MarketAnswer<Heatmap>> => view(`heatmap:${limit}`, (t) => heatmap(t.rows, limit)),

    volumeDistribution: (): Promise<MarketAnswer<VolumeDistribution>> =>
      view('volume-distribution', (t) => volumeDistribution(t.rows, t.rates, DISTRIBUTION_ASSETS)),

    activity: (): Promise<MarketAnswer<Activity>> => view('activity', (t) => activity(t.rows, t.rates, MOST_TRADED)),

    trending: (limit: number): Promise<MarketAnswer<Trending>> =>
      view(`trending:${limit}`, (t) => trending(t.rows, limit)),
  };
}

export type OverviewService = ReturnType<typeof createOverviewService>;
