// Venue health: one status call per venue (its status endpoint, else server time), timed, cached
// for a minute in the shared cache unless a refresh is forced, with the venue's request-weight
// budget as it stands now (never cached). Public and cheap.
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError } from '../../platform/http/errors.ts';
import { BudgetRefusal, type BudgetState, type VenueBudget } from '../../platform/venue-budget/venue-budget.ts';
import { VenueError, type VenueGateway } from './adapters/venue-gateway.ts';
import { venueWithin } from './timeouts.ts';
import { HEALTH_TTL_MS, VENUES, type Venue } from './venues.domain.ts';

/** One venue's health: the last check, and its request-weight budget now. */
export interface VenueHealth {
  venue: Venue;
  status: 'healthy' | 'maintenance' | 'rate_limited' | 'unreachable' | 'error';
  latencyMs: number | null;
  error: string | null;
  checkedAt: Date;
  /** Answered from the last minute's check. */
  cached: boolean;
  budget: BudgetState;
}

/** Every venue's health, and how many are healthy. */
export interface VenuesHealth {
  status: 'healthy' | 'unhealthy' | 'degraded';
  healthyCount: number;
  venues: VenueHealth[];
  checkedAt: Date;
}

type Checked = Omit<VenueHealth, 'budget'>;

/** A check as the shared cache keeps it (JSON): the time as an ISO string. */
type StoredCheck = Omit<Checked, 'checkedAt'> & { checkedAt: string };

export function createHealthService(deps: {
  gateway: Pick<VenueGateway, 'ready' | 'status'>;
  cache: Cache;
  clock: Clock;
  probeTimeoutMs: number;
  budget: (venue: Venue) => Pick<VenueBudget, 'state' | 'snapshot'>;
}) {
  // v2: the check is kept in its camelCase fields (v1 kept the wire's); a v1 entry is never read as one.
  const key = (venue: Venue) => `exchange:health:v2:${venue}`;

  /** The shared state; this instance's last view when the shared store cannot be read. */
  async function budget(venue: Venue): Promise<BudgetState> {
    const of = deps.budget(venue);
    return of.state().catch(() => of.snapshot());
  }

  async function check(venue: Venue): Promise<Checked> {
    const checkedAt = deps.clock.now();
    try {
      // The probe's bound is the venue's: a first check's load of the venue library (decision 700) and the
      // build of the venue's kept status instance (decision 800) are not in it.
      await deps.gateway.ready(venue, { timeoutMs: deps.probeTimeoutMs });
      const { status, latencyMs } = await venueWithin(
        deps.gateway.status(venue, { timeoutMs: deps.probeTimeoutMs }),
        deps.probeTimeoutMs,
        venue,
      );
      const healthy = status === 'ok';
      return {
        venue,
        status: healthy ? 'healthy' : status === 'maintenance' ? 'maintenance' : 'error',
        latencyMs,
        error: healthy ? null : `${venue} reports status ${status}`,
        checkedAt,
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
      return { venue, status, latencyMs: null, error: reason, checkedAt, cached: false };
    }
  }

  async function one(venue: Venue, forceRefresh: boolean): Promise<VenueHealth> {
    if (!forceRefresh) {
      const cached = await deps.cache.get<StoredCheck>(key(venue)).catch(() => undefined);
      if (cached)
        return { ...cached, checkedAt: new Date(cached.checkedAt), cached: true, budget: await budget(venue) };
    }
    const fresh = await check(venue);
    const stored: StoredCheck = { ...fresh, checkedAt: fresh.checkedAt.toISOString() };
    await deps.cache.set(key(venue), stored, HEALTH_TTL_MS).catch(() => undefined);
    return { ...fresh, budget: await budget(venue) };
  }

  return {
    one,
    async all(forceRefresh: boolean): Promise<VenuesHealth> {
      const venues = await Promise.all(VENUES.map((venue) => one(venue, forceRefresh)));
      const healthy = venues.filter((r) => r.status === 'healthy').length;
      const status: VenuesHealth['status'] =
        healthy === venues.length ? 'healthy' : healthy === 0 ? 'unhealthy' : 'degraded';
      return { status, healthyCount: healthy, venues, checkedAt: deps.clock.now() };
    },
  };
}
