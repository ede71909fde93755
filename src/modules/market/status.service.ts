// GET /market/status: how each upstream is doing, what it has cost, how old the cached data is and
// whether prices come from the live stream or the REST fallback. Reads state only; calls nothing.
import type { Clock } from '../../platform/clock.ts';
import type { AssetMarketSource, LiveFeedState, LivePriceFeed, SpotMarketSource } from './adapters/market-source.ts';
import type { CacheAge, MarketCache } from './market-cache.ts';
import type { UpstreamUsage } from './market.types.ts';

export type MarketHealth = 'ok' | 'degraded' | 'down';

/** How the market data sources are doing, as this instance sees them; times in ms since the epoch. */
export interface MarketStatus {
  /** The configured source: `binance` (with CoinGecko) or `simulated`. */
  source: string;
  status: MarketHealth;
  /** When the newest data this instance holds was fetched. */
  lastUpdate: number | null;
  upstreams: (UpstreamUsage & { healthy: boolean })[];
  liveStream: LiveFeedState & { enabled: boolean };
  caches: CacheAge[];
}

function healthy(usage: UpstreamUsage): boolean {
  return !usage.breakerOpen && (usage.lastFailureAt === null || (usage.lastSuccessAt ?? -1) > usage.lastFailureAt);
}

export function createStatusService(deps: {
  spot: SpotMarketSource;
  assets: AssetMarketSource;
  live: LivePriceFeed;
  store: MarketCache;
  clock: Clock;
  settings: { source: string; liveStream: boolean };
}) {
  const { spot, assets, live, store, clock, settings } = deps;

  return {
    status(): MarketStatus {
      const usages = [spot.usage(), assets.usage()].filter((u): u is UpstreamUsage => u !== null);
      const upstreams = usages.map((u) => ({ ...u, healthy: healthy(u) }));
      const stream = live.state();
      const caches = store.ages();
      const now = clock.now().getTime();
      const newest = caches.length > 0 ? Math.min(...caches.map((c) => c.ageMs)) : null;
      const unhealthy = upstreams.filter((u) => !u.healthy).length;
      const streamDown =
        settings.liveStream && stream.status !== 'idle' && stream.status !== 'disabled' && !stream.live;
      let status: MarketHealth = 'ok';
      if (usages.length > 0 && unhealthy === usages.length) status = 'down';
      else if (unhealthy > 0 || streamDown) status = 'degraded';
      return {
        source: settings.source,
        status,
        lastUpdate: newest === null ? null : now - newest,
        upstreams,
        liveStream: { ...stream, enabled: settings.liveStream && stream.status !== 'disabled' },
        caches,
      };
    },
  };
}

export type StatusService = ReturnType<typeof createStatusService>;
