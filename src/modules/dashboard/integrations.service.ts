// GET /dashboard/integrations: per external system, whether it is configured, how it last went and
// whether it is reachable. Reachability comes from the checks the modules offer (tracker health,
// venue health, Binance ping, SMTP greeting, Redis ping) through the probe memo, so each runs at
// most once a minute per instance, bounded by a timeout; the rest is read from state the modules
// keep (decision 082).
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import { iso } from '../../platform/http/schemas.ts';
import type { DashboardDeps } from './dashboard.deps.ts';
import type { IntegrationCore, IntegrationsAnswer } from './integrations.schemas.ts';
import { PROBE_TTL_MS, type ProbeMemo, type ProbeRecord } from './probe-memo.ts';
import { safeErrorText } from './safe-text.domain.ts';

type Venue = DashboardDeps['exchanges']['venues'][number];
type Health = NonNullable<IntegrationsAnswer['exchanges'][number]['health']>;
type Stamp = { at: string | null; error?: string | null };

const notProbed = { reachable: null, checked_at: null } as const;

/** The later of two times (ISO strings or null). */
function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a >= b ? a : b;
}

/** The more recent of several failures, with its text. */
function latestError(...failures: Stamp[]): { last_error_at: string | null; last_error: string | null } {
  let best: Stamp = { at: null, error: null };
  for (const failure of failures) if (failure.at !== null && (best.at === null || failure.at > best.at)) best = failure;
  return { last_error_at: best.at, last_error: safeErrorText(best.error ?? null) };
}

function fromProbe(record: ProbeRecord): IntegrationCore & { latency_ms: number | null } {
  return {
    configured: true,
    reachable: record.reachable,
    checked_at: iso(record.checkedAt),
    latency_ms: record.latencyMs,
    last_success_at: iso(record.lastSuccessAt),
    last_error_at: iso(record.lastErrorAt),
    last_error: record.lastError,
  };
}

const CREDENTIAL_FAILURE: Record<string, string> = {
  invalid: 'The venue refused a stored credential',
  error: 'A stored credential could not be checked with the venue',
};

export function createIntegrationsService(
  deps: Pick<DashboardDeps, 'exchanges' | 'market' | 'tracker' | 'notifications' | 'webhooks'> & {
    cache: Pick<Cache, 'kind' | 'ping'>;
    probes: ProbeMemo;
    clock: Clock;
    trackerBackend: 'local' | 'linear';
  },
) {
  const { probes } = deps;

  async function exchanges(): Promise<IntegrationsAnswer['exchanges']> {
    const stats = await deps.exchanges.credentialStats();
    return Promise.all(
      deps.exchanges.venues.map(async (venue: Venue) => {
        const own = stats.find((s) => s.venue === venue);
        const count = own?.count ?? 0;
        const credentialFailure = {
          at: iso(own?.lastErrorAt ?? null),
          error: own?.lastErrorStatus ? CREDENTIAL_FAILURE[own.lastErrorStatus] : null,
        };
        const { used_weight_1m, limit_1m, cap_1m, share, breaker_open, breaker_until, scope } =
          await deps.exchanges.budget(venue);
        const budget = { used_weight_1m, limit_1m, cap_1m, share, breaker_open, breaker_until, scope };
        const base = { venue, configured: count > 0, credentials: count, budget };
        // Only venues someone stored credentials for are checked: no calls to venues nobody uses.
        if (count === 0) {
          return {
            ...base,
            ...notProbed,
            health: null,
            latency_ms: null,
            last_success_at: iso(own?.lastSuccessAt ?? null),
            ...latestError(credentialFailure),
          };
        }
        const record = await probes.get(`exchange:${venue}`, async () => {
          const result = await deps.exchanges.health(venue);
          // Maintenance and rate limits are answers: the venue is there.
          const reachable = result.status !== 'unreachable' && result.status !== 'error';
          return {
            reachable,
            latencyMs: result.latencyMs,
            error: reachable ? null : result.error,
            state: result.status,
          };
        });
        return {
          ...base,
          reachable: record.reachable,
          checked_at: iso(record.checkedAt),
          health: (record.state ?? (record.reachable ? 'healthy' : 'unreachable')) as Health,
          latency_ms: record.latencyMs,
          last_success_at: later(iso(own?.lastSuccessAt ?? null), iso(record.lastSuccessAt)),
          ...latestError(credentialFailure, { at: iso(record.lastErrorAt), error: record.lastError }),
        };
      }),
    );
  }

  async function marketData(): Promise<IntegrationsAnswer['market_data']> {
    const simulated = deps.market.status().source === 'simulated';
    // Binance's ping (weight 1) goes through the market module's client: the venue's budget and breaker.
    const record = simulated
      ? null
      : await probes.get('market', async () => {
          const probe = await deps.market.probe();
          if (!probe) return { reachable: false, latencyMs: null, error: 'no upstream to check' };
          return { reachable: probe.reachable, latencyMs: probe.latencyMs, error: probe.detail };
        });
    // Read after the probe, whose call the upstreams' figures then include.
    const status = deps.market.status();
    const upstreams = status.upstreams;
    const successes = upstreams
      .map((u) => (u.lastSuccessAt === null ? null : new Date(u.lastSuccessAt).toISOString()))
      .reduce<string | null>((a, b) => later(a, b), null);
    return {
      configured: !simulated,
      reachable: record?.reachable ?? null,
      checked_at: iso(record?.checkedAt ?? null),
      latency_ms: record?.latencyMs ?? null,
      last_success_at: later(successes, iso(record?.lastSuccessAt ?? null)),
      ...latestError(
        ...upstreams.map((u) => ({
          at: u.lastFailureAt === null ? null : new Date(u.lastFailureAt).toISOString(),
          error: u.lastError,
        })),
        {
          at: iso(record?.lastErrorAt ?? null),
          error: record?.lastError ?? null,
        },
      ),
      source: status.source,
      status: status.status,
      live_stream: {
        enabled: status.liveStream.enabled,
        status: status.liveStream.status,
        live: status.liveStream.live,
      },
    };
  }

  async function tracker(): Promise<IntegrationsAnswer['tracker']> {
    const record = await probes.get('tracker', async () => {
      const health = await deps.tracker.health();
      return {
        reachable: health.reachable,
        latencyMs: health.latencyMs,
        error: health.reachable ? null : health.detail,
      };
    });
    return { ...fromProbe(record), configured: deps.trackerBackend === 'linear', backend: deps.trackerBackend };
  }

  async function redis(): Promise<IntegrationsAnswer['redis']> {
    if (deps.cache.kind !== 'redis') {
      return {
        configured: false,
        ...notProbed,
        latency_ms: null,
        last_success_at: null,
        last_error_at: null,
        last_error: null,
      };
    }
    const record = await probes.get('redis', async () => {
      const latency = await deps.cache.ping();
      return { reachable: true, latencyMs: Math.round(latency * 100) / 100, error: null };
    });
    return fromProbe(record);
  }

  async function notifications(): Promise<Pick<IntegrationsAnswer, 'chat' | 'mail'>> {
    const { chat, mail } = await deps.notifications.status();
    const queue = (kind: typeof mail) => ({ pending: kind.pending, dead_letters: kind.dead });
    // No probe of the chat webhook: the only check of it is posting something.
    const chatEntry = {
      configured: chat.configured,
      ...notProbed,
      last_success_at: chat.lastSuccessAt,
      last_error_at: chat.lastErrorAt,
      last_error: safeErrorText(chat.lastError),
      format: chat.format,
      ...queue(chat),
    };
    // The relay is asked for a connect and greeting (and a login when the URL has credentials).
    const record = mail.configured
      ? await probes.get('mail', async () => {
          const check = await deps.notifications.checkMailServer();
          if (!check) return { reachable: false, latencyMs: null, error: 'no relay to check' };
          return { reachable: check.reachable, latencyMs: check.latencyMs, error: check.detail };
        })
      : null;
    const mailEntry = {
      configured: mail.configured,
      reachable: record?.reachable ?? null,
      checked_at: iso(record?.checkedAt ?? null),
      latency_ms: record?.latencyMs ?? null,
      last_success_at: later(mail.lastSuccessAt, iso(record?.lastSuccessAt ?? null)),
      last_delivery_at: mail.lastSuccessAt,
      ...latestError(
        { at: mail.lastErrorAt, error: mail.lastError },
        { at: iso(record?.lastErrorAt ?? null), error: record?.lastError ?? null },
      ),
      ...queue(mail),
    };
    return { chat: chatEntry, mail: mailEntry };
  }

  async function webhooks(): Promise<IntegrationsAnswer['webhooks']> {
    // Inbound only: there is nothing to probe.
    return (await deps.webhooks.providerStatus()).map((p) => ({
      provider: p.provider,
      configured: p.secretConfigured,
      ...notProbed,
      last_delivery_at: iso(p.lastDeliveryAt),
      last_success_at: iso(p.lastSuccessAt),
      last_error_at: iso(p.lastErrorAt),
      last_error: safeErrorText(p.lastError),
    }));
  }

  return {
    async integrations(): Promise<IntegrationsAnswer> {
      const [exchangeList, market, trackerEntry, redisEntry, channels, hooks] = await Promise.all([
        exchanges(),
        marketData(),
        tracker(),
        redis(),
        notifications(),
        webhooks(),
      ]);
      return {
        generated_at: iso(deps.clock.now())!,
        probe_ttl_seconds: PROBE_TTL_MS / 1000,
        exchanges: exchangeList,
        market_data: market,
        tracker: trackerEntry,
        ...channels,
        webhooks: hooks,
        redis: redisEntry,
      };
    },
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;
