// Venue health: one status call per venue (its status endpoint, else server time), timed, cached
// for a minute in the shared cache unless a refresh is forced, with the venue's request-weight
// budget as it stands now (never cached). Public and cheap.
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError } from '../../platform/http/errors.ts';
import {
  BudgetRefusal,
  budgetView,
  type BudgetView,
  type VenueBudget,
} from '../../platform/venue-budget/venue-budget.ts';
import { VenueError, type VenueGateway } from './adapters/venue-gateway.ts';
import { venueWithin } from './timeouts.ts';
import { HEALTH_TTL_MS, VENUES, type Venue } from './venues.domain.ts';

interface VenueHealth {
  exchange: Venue;
  status: 'healthy' | 'maintenance' | 'rate_limited' | 'unreachable' | 'error';
  latency_ms: number | null;
  error: string | null;
  checked_at: string;
  cached: boolean;
  budget: BudgetView;
}

type Checked = Omit<VenueHealth, 'budget'>;

export function createHealthService(deps: {
  gateway: Pick<VenueGateway, 'status'>;
  cache: Cache;
  clock: Clock;
  probeTimeoutMs: number;
  budget: (venue: Venue) => Pick<VenueBudget, 'state' | 'snapshot'>;
}) {
  const key = (venue: Venue) => `exchange:health:v1:${venue}`;

  /** The shared state; this instance's last view when the shared store cannot be read. */
  async function budget(venue: Venue): Promise<BudgetView> {
    const of = deps.budget(venue);
    return budgetView(await of.state().catch(() => of.snapshot()));
  }

  async function check(venue: Venue): Promise<Checked> {
    const checkedAt = deps.clock.now().toISOString();
    try {
      const { status, latencyMs } = await venueWithin(
        deps.gateway.status(venue, { timeoutMs: deps.probeTimeoutMs }),
        deps.probeTimeoutMs,
        venue,
      );
      const healthy = status === 'ok';
      return {
        exchange: venue,
        status: healthy ? 'healthy' : status === 'maintenance' ? 'maintenance' : 'error',
        latency_ms: latencyMs,
        error: healthy ? null : `${venue} reports status ${status}`,
        checked_at: checkedAt,
        cached: false,
      };
    } catch (error) {
      const failure = error instanceof VenueError ? error.failure : undefined;
      const status: VenueHealth['status'] =
        failure === 'rate_limited' || failure === 'ip_banned' || (error instanceof BudgetRefusal && error.rateLimited)
          ? 'rate_limited'
          : failure === 'maintenance'
            ? 'maintenance'
            : failure === 'unreachable' || failure === 'timeout' || error instanceof BudgetRefusal
              ? 'unreachable'
              : 'error';
      const reason = error instanceof AppError ? String(error.detail) : `${venue} failed unexpectedly`;
      return { exchange: venue, status, latency_ms: null, error: reason, checked_at: checkedAt, cached: false };
    }
  }

  async function one(venue: Venue, forceRefresh: boolean): Promise<VenueHealth> {
    if (!forceRefresh) {
      const cached = await deps.cache.get<Checked>(key(venue)).catch(() => undefined);
      if (cached) return { ...cached, cached: true, budget: await budget(venue) };
    }
    const fresh = await check(venue);
    await deps.cache.set(key(venue), fresh, HEALTH_TTL_MS).catch(() => undefined);
    return { ...fresh, budget: await budget(venue) };
  }

  return {
    one,
    async all(forceRefresh: boolean) {
      const results = await Promise.all(VENUES.map((venue) => one(venue, forceRefresh)));
      const healthy = results.filter((r) => r.status === 'healthy').length;
      const status: 'healthy' | 'unhealthy' | 'degraded' =
        healthy === results.length ? 'healthy' : healthy === 0 ? 'unhealthy' : 'degraded';
      return {
        status,
        healthy_count: healthy,
        total: results.length,
        exchanges: Object.fromEntries(results.map((r) => [r.exchange, r])) as Record<Venue, VenueHealth>,
        checked_at: deps.clock.now().toISOString(),
      };
    },
  };
}
