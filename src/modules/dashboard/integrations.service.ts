// GET /dashboard/integrations: per external system, whether it is configured, how it last went and
// whether it is reachable. Reachability comes from the checks the modules offer (tracker health,
// venue health, Binance ping, SMTP greeting, Redis ping) through the probe memo, so each runs at
// most once a minute per instance, bounded by a timeout; the rest is read from state the modules
// keep (decision 082).
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import { reusedFor } from '../../platform/reused.ts';
import type { BudgetState } from '../../platform/venue-budget/venue-budget.ts';
import type { MarketHealth } from '../market/index.ts';
import type { DashboardDeps } from './dashboard.deps.ts';
import type { IntegrationsAnswer } from './integrations.schemas.ts';
import type { ProbeMemo, ProbeRecord } from './probe-memo.ts';
import { DASHBOARD_REUSE_MS } from './overview.service.ts';
import { dateOf, later, latestError } from './integration-times.domain.ts';
import { safeErrorText } from './safe-text.domain.ts';

type Venue = DashboardDeps['exchanges']['venues'][number];
type Health = NonNullable<IntegrationsAnswer['exchanges'][number]['health']>;

/** What every integration reports: whether it is set up, reachable, and how it last went. */
export interface IntegrationState {
  configured: boolean;
  /** Null when not probed. */
  reachable: boolean | null;
  checkedAt: Date | null;
  lastSuccessAt: Date | null;
  lastErrorAt: Date | null;
  /** Cleaned (safeErrorText). */
  lastError: string | null;
}

export interface ExchangeIntegration extends IntegrationState {
  venue: Venue;
  credentials: number;
  health: Health | null;
  latencyMs: number | null;
  budget: BudgetState;
}

export interface MarketIntegration extends IntegrationState {
  source: string;
  status: MarketHealth;
  latencyMs: number | null;
  liveStream: { enabled: boolean; status: string; live: boolean };
}

export interface TrackerIntegration extends IntegrationState {
  backend: 'local' | 'linear';
  latencyMs: number | null;
}

export interface ChatIntegration extends IntegrationState {
  format: 'slack' | 'discord';
  pending: number;
  deadLetters: number;
}

export interface MailIntegration extends IntegrationState {
  latencyMs: number | null;
  lastDeliveryAt: Date | null;
  pending: number;
  deadLetters: number;
}

export interface WebhookIntegration extends IntegrationState {
  provider: string;
  lastDeliveryAt: Date | null;
  lastRefusedAt: Date | null;
  lastRefusal: string | null;
}

export interface RedisIntegration extends IntegrationState {
  latencyMs: number | null;
}

export interface Integrations {
  generatedAt: Date;
  exchanges: ExchangeIntegration[];
  marketData: MarketIntegration;
  tracker: TrackerIntegration;
  chat: ChatIntegration;
  mail: MailIntegration;
  webhooks: WebhookIntegration[];
  redis: RedisIntegration;
}

const notProbed = { reachable: null, checkedAt: null } as const;

function fromProbe(record: ProbeRecord): IntegrationState & { latencyMs: number | null } {
  return {
    configured: true,
    reachable: record.reachable,
    checkedAt: record.checkedAt,
    latencyMs: record.latencyMs,
    lastSuccessAt: record.lastSuccessAt,
    lastErrorAt: record.lastErrorAt,
    lastError: record.lastError,
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

  async function exchanges(): Promise<ExchangeIntegration[]> {
    const stats = await deps.exchanges.credentialStats();
    return Promise.all(
      deps.exchanges.venues.map(async (venue: Venue) => {
        const own = stats.find((s) => s.venue === venue);
        const count = own?.count ?? 0;
        const credentialFailure = {
          at: own?.lastErrorAt ?? null,
          error: own?.lastErrorStatus ? CREDENTIAL_FAILURE[own.lastErrorStatus] : null,
        };
        const base = { venue, configured: count > 0, credentials: count, budget: await deps.exchanges.budget(venue) };
        // Only venues someone stored credentials for are checked: no calls to venues nobody uses.
        if (count === 0) {
          return {
            ...base,
            ...notProbed,
            health: null,
            latencyMs: null,
            lastSuccessAt: own?.lastSuccessAt ?? null,
            ...latestError(credentialFailure),
          };
        }
        // The probe's bound is the venue's: a first check's load of the venue library is not in it (decision 700).
        // A load that fails fails the probe below, as its own outcome.
        await deps.exchanges.ready(venue).catch(() => undefined);
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
          checkedAt: record.checkedAt,
          health: (record.state ?? (record.reachable ? 'healthy' : 'unreachable')) as Health,
          latencyMs: record.latencyMs,
          lastSuccessAt: later(own?.lastSuccessAt ?? null, record.lastSuccessAt),
          ...latestError(credentialFailure, { at: record.lastErrorAt, error: record.lastError }),
        };
      }),
    );
  }

  async function marketData(): Promise<MarketIntegration> {
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
    const successes = status.upstreams
      .map((u) => dateOf(u.lastSuccessAt))
      .reduce<Date | null>((a, b) => later(a, b), null);
    const { enabled, status: streamStatus, live } = status.liveStream;
    return {
      configured: !simulated,
      reachable: record?.reachable ?? null,
      checkedAt: record?.checkedAt ?? null,
      latencyMs: record?.latencyMs ?? null,
      lastSuccessAt: later(successes, record?.lastSuccessAt ?? null),
      ...latestError(...status.upstreams.map((u) => ({ at: dateOf(u.lastFailureAt), error: u.lastError })), {
        at: record?.lastErrorAt ?? null,
        error: record?.lastError ?? null,
      }),
      source: status.source,
      status: status.status,
      liveStream: { enabled, status: streamStatus, live },
    };
  }

  async function tracker(): Promise<TrackerIntegration> {
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

  async function redis(): Promise<RedisIntegration> {
    if (deps.cache.kind !== 'redis') {
      return {
        configured: false,
        ...notProbed,
        latencyMs: null,
        lastSuccessAt: null,
        lastErrorAt: null,
        lastError: null,
      };
    }
    const record = await probes.get('redis', async () => {
      const latency = await deps.cache.ping();
      return { reachable: true, latencyMs: Math.round(latency * 100) / 100, error: null };
    });
    return fromProbe(record);
  }

  async function notifications(): Promise<Pick<Integrations, 'chat' | 'mail'>> {
    const { chat, mail } = await deps.notifications.status();
    const queue = (kind: typeof mail) => ({ pending: kind.pending, deadLetters: kind.dead });
    // No probe of the chat webhook: the only check of it is posting something.
    const chatEntry = {
      configured: chat.configured,
      ...notProbed,
      lastSuccessAt: chat.lastSuccessAt,
      lastErrorAt: chat.lastErrorAt,
      lastError: safeErrorText(chat.lastError),
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
    const lastDelivery = mail.lastSuccessAt;
    const mailEntry = {
      configured: mail.configured,
      reachable: record?.reachable ?? null,
      checkedAt: record?.checkedAt ?? null,
      latencyMs: record?.latencyMs ?? null,
      lastSuccessAt: later(lastDelivery, record?.lastSuccessAt ?? null),
      lastDeliveryAt: lastDelivery,
      ...latestError(
        { at: mail.lastErrorAt, error: mail.lastError },
        { at: record?.lastErrorAt ?? null, error: record?.lastError ?? null },
      ),
      ...queue(mail),
    };
    return { chat: chatEntry, mail: mailEntry };
  }

  async function webhooks(): Promise<WebhookIntegration[]> {
    // Inbound only: there is nothing to probe.
    return (await deps.webhooks.providerStatus()).map((p) => ({
      provider: p.provider,
      configured: p.secretConfigured,
      ...notProbed,
      lastDeliveryAt: p.lastDeliveryAt,
      lastSuccessAt: p.lastSuccessAt,
      lastErrorAt: p.lastErrorAt,
      lastError: safeErrorText(p.lastError),
      lastRefusedAt: p.lastRefusedAt,
      lastRefusal: safeErrorText(p.lastRefusal),
    }));
  }

  async function compute(): Promise<Integrations> {
    const [exchangeList, market, trackerEntry, redisEntry, channels, hooks] = await Promise.all([
      exchanges(),
      marketData(),
      tracker(),
      redis(),
      notifications(),
      webhooks(),
    ]);
    return {
      generatedAt: deps.clock.now(),
      exchanges: exchangeList,
      marketData: market,
      tracker: trackerEntry,
      ...channels,
      webhooks: hooks,
      redis: redisEntry,
    };
  }

  // The probes are remembered a minute; the figures read around them (credentials, budgets, outbox, deliveries)
  // are statements and cache commands a request. Public and the same for every caller: reused (decision 950).
  const reused = reusedFor(DASHBOARD_REUSE_MS, deps.clock, compute);
  return {
    /** Reused for DASHBOARD_REUSE_MS by the clock; concurrent callers share the one being computed. */
    integrations: (): Promise<Integrations> => reused.get(),
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;
