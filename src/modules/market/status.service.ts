// GET /market/status: how each upstream is doing, what it has cost, how old the cached data is and
// whether prices come from the live stream or the REST fallback. Reads state only; calls nothing.
import type { Clock } from '../../platform/clock.ts';
import type { AssetMarketSource, LivePriceFeed, SpotMarketSource } from './adapters/market-source.ts';
import type { MarketCache } from './market-cache.ts';
import type { UpstreamUsage } from './market.types.ts';
import type { StatusResponse } from './status.schemas.ts';

const when = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

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
    status(): StatusResponse {
      const usages = [spot.usage(), assets.usage()].filter((u): u is UpstreamUsage => u !== null);
      const upstreams = Object.fromEntries(
        usages.map((u) => [
          u.name.toLowerCase(),
          {
            healthy: healthy(u),
            breaker_open: u.breakerOpen,
            breaker_until: when(u.breakerUntil),
            breaker_reason: u.breakerReason,
            // The same breaker in the words this answer used first (decision 174).
            circuit: u.breakerOpen ? 'open' : 'closed',
            open_until: when(u.breakerUntil),
            open_reason: u.breakerReason,
            consecutive_failures: u.consecutiveFailures,
            calls: u.calls,
            failures: u.failures,
            last_success_at: when(u.lastSuccessAt),
            last_failure_at: when(u.lastFailureAt),
            last_error: u.lastError,
            used_weight_1m: u.usedWeight1m,
            weight_limit_1m: u.weightLimit1m,
            weight_budget_1m: u.weightBudget1m,
          },
        ]),
      );
      const stream = live.state();
      const caches = store.ages();
      const now = clock.now().getTime();
      const newest = caches.length > 0 ? Math.min(...caches.map((c) => c.ageMs)) : null;
      const unhealthy = usages.filter((u) => !healthy(u)).length;
      const streamDown =
        settings.liveStream && stream.status !== 'idle' && stream.status !== 'disabled' && !stream.live;
      let status = 'ok';
      if (usages.length > 0 && unhealthy === usages.length) status = 'down';
      else if (unhealthy > 0 || streamDown) status = 'degraded';
      return {
        source: settings.source,
        status,
        last_update: newest === null ? null : when(now - newest),
        upstreams,
        live_stream: {
          enabled: settings.liveStream && stream.status !== 'disabled',
          status: stream.status,
          live: stream.live,
          serving: stream.live ? 'stream' : 'rest',
          connected_since: when(stream.connectedSince),
          last_message_at: when(stream.lastMessageAt),
          reconnects: stream.reconnects,
          next_attempt_at: when(stream.nextAttemptAt),
          last_error: stream.lastError,
          symbols: stream.symbols,
        },
        caches: caches.map((c) => ({
          key: c.key,
          age_seconds: c.ageMs / 1000,
          ttl_seconds: c.ttlMs / 1000,
          fresh: c.fresh,
        })),
      };
    },
  };
}

export type StatusService = ReturnType<typeof createStatusService>;
