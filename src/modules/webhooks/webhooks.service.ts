// The receiving pipeline shared by every provider, once the admission gate has verified the
// delivery against its raw bytes: in one transaction store it and cause its effects (outbox
// messages, ledger rows, user changes). The answer goes out only after the commit, so an
// acknowledged delivery is never lost; a delivery seen before causes nothing the second time.
import type { Logger } from 'pino';
import { audit } from './webhooks.audit.ts';
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db, DbExecutor } from '../../platform/db/database.ts';
import { AppError, validationFailed } from '../../platform/http/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import type { NotificationsModule } from '../notifications/index.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { WEBHOOKS_EVENTS } from './webhooks.events.ts';
import { parseUserId, type UsersModule } from '../users/index.ts';
import {
  RETRY_WINDOW_MS,
  type DeliveryFacts,
  type EffectContext,
  type Headers,
  type HookAnswer,
  type InboundDelivery,
  type Outcome,
  type PortName,
  type ProviderPorts,
} from './providers/provider.ts';
import type { PaymentsRepository } from './payments.repository.ts';
import { WEBHOOK_PROVIDERS, type ProviderDeclaration, type WebhookProvider } from './providers/registry.ts';
import { refusalKey, type AdmissionService, type RecordedRefusal, type WebhookSettings } from './admission.service.ts';
import { bodyDigest } from './signatures.ts';
import type { Claim, DeliveryRepository } from './webhooks.repository.ts';

interface IncomingRequest {
  headers: Headers;
  rawBody: Buffer | undefined;
  body: unknown;
  /** Whether the admission gate verified it (false: accepted unsigned, WEBHOOKS_ALLOW_UNSIGNED=true). */
  verified: boolean;
}

/**
 * The latest delivery refused at the gate (decision 990): anyone can cause one, so it is shown beside the
 * provider's errors, never as one; recorded at most once a minute per provider.
 */
export interface LastRefusal {
  lastRefusedAt: Date | null;
  lastRefusal: string | null;
}

/** A provider as the dashboard shows it: whether its secret is set, its last delivery, success and error. */
export interface ProviderStatus extends LastRefusal {
  provider: WebhookProvider;
  secretConfigured: boolean;
  lastDeliveryAt: Date | null;
  lastSuccessAt: Date | null;
  lastErrorAt: Date | null;
  lastError: string | null;
}

/** When a provider's last delivery came, and the error it stands in now (none once a later attempt succeeded). */
interface LastDelivery extends LastRefusal {
  lastDeliveryAt: Date | null;
  lastError: string | null;
}

/** A platform provider's readiness: its secret, its last delivery, and deliveries matching no user. */
export interface PlatformHealth extends LastDelivery {
  provider: WebhookProvider;
  secretConfigured: boolean;
  unmatched: number;
}

/** Whether every platform provider can receive (or unsigned deliveries are accepted), and each one. */
export interface PlatformsReadiness {
  ready: boolean;
  allowUnsigned: boolean;
  providers: PlatformHealth[];
}

/** The mail-event receiver: whether its secret is set, and when its last delivery came. */
export interface MailerReadiness {
  secretConfigured: boolean;
  allowUnsigned: boolean;
  lastDeliveryAt: Date | null;
}

/**
 * What became of a delivery, in the pipeline's words: its outcome, a duplicate (with the answer a
 * provider gives to one seen before), or failed effects (the sender retries).
 */
type Handled = Outcome | { status: 'duplicate'; answer?: HookAnswer } | { status: 'failed'; error: unknown };

/** Carries a refused outcome out of the transaction it rolls back. */
class RefusedDelivery extends Error {
  constructor(readonly outcome: Outcome & { status: 'refused' }) {
    super('refused delivery');
  }
}

/** The innermost cause: the database's own words, not the wrapping query text with its parameters. */
function rootMessage(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}

export function createWebhooksService(deps: {
  db: Db;
  repo: DeliveryRepository;
  payments: PaymentsRepository;
  providers: Readonly<Record<WebhookProvider, ProviderDeclaration>>;
  admission: Pick<AdmissionService, 'checkBody'>;
  settings: Pick<WebhookSettings, 'allowUnsigned' | 'secrets'> & { gracePeriodDays: number };
  clock: Clock;
  cache: Pick<Cache, 'get'>;
  users: {
    accounts: Pick<
      UsersModule['accounts'],
      'findByEmail' | 'findById' | 'findForExternalIdentity' | 'changeTier' | 'openGracePeriod' | 'clearGracePeriod'
    >;
  };
  messages: NotificationsModule['messages'];
  events: Pick<EventPublisher<typeof WEBHOOKS_EVENTS>, 'admins'>;
  logger: Logger;
}) {
  const { db, repo, payments, providers, admission, settings, clock, cache, logger, messages } = deps;
  const { accounts } = deps.users;

  /** Every port, each bound to the delivery's transaction (`tx`, never handed out). */
  function portsFor(tx: DbExecutor, base: DeliveryFacts): ProviderPorts {
    const dedupe = `${base.provider}:${base.deliveryId}`;
    const { now, provider } = base;
    return {
      async chat(message, part) {
        await messages.chat(tx, { source: provider, ...message }, now, part ? `${dedupe}:${part}` : dedupe);
      },
      async mail(message, part) {
        return messages.mail(tx, message, now, part ? `${dedupe}:${part}` : dedupe);
      },
      async findUser({ email, id }) {
        if (email) return accounts.findByEmail(email, tx);
        const userId = id ? parseUserId(id) : undefined;
        return userId ? accounts.findById(userId, tx) : undefined;
      },
      findIdentity: (identity) => accounts.findForExternalIdentity(identity, tx),
      billing: {
        gracePeriodDays: settings.gracePeriodDays,
        changeTier: (userId, tier) => accounts.changeTier(userId, tier, now, tx),
        openGracePeriod: (userId, endsAt) => accounts.openGracePeriod(userId, endsAt, now, tx),
        clearGracePeriod: (userId) => accounts.clearGracePeriod(userId, now, tx),
      },
      isSuppressed: (email) => messages.isSuppressed(email, tx),
      suppress: (email, reason) => messages.suppress(email, reason, now, tx),
      async audit(event) {
        await audit(
          {
            ...event,
            actorType: 'webhook',
            details: { provider, deliveryId: base.deliveryId, ...event.details },
          },
          now,
          tx,
        );
      },
      deliveries: {
        find: (where, options) => repo.findDeliveries({ provider, ...where }, options, tx),
        settle: (ids, status) => repo.settleHeld(provider, ids, status, now, tx),
      },
      payments: {
        findCustomer: (customerId) => payments.findCustomer(customerId, tx),
        rememberCustomer: (customer) => payments.rememberCustomer(customer, now, tx),
        rememberTier: (customerId, tier) => payments.rememberTier(customerId, tier, now, tx),
        rememberRaise: (customerId, from) => payments.rememberRaise(customerId, from, now, tx),
        otherCustomers: (userId, customerId) => payments.otherCustomers(userId, customerId, tx),
        recordPayment: (payment) => payments.recordPayment(payment, now, tx),
      },
    };
  }

  /** What a provider's effects are given: the delivery and the ports it declared, no other. */
  function contextFor(tx: DbExecutor, declaration: ProviderDeclaration, base: DeliveryFacts): EffectContext {
    const all = portsFor(tx, base);
    const given: Partial<Record<PortName, unknown>> = {};
    for (const port of declaration.ports) given[port] = all[port];
    // The declaration's own type gave its effects only the ports it lists (defineWebhookProvider).
    return { ...base, ...(given as Pick<ProviderPorts, PortName>) };
  }

  /** Stores and applies one delivery the admission gate let in; answers what the route sends back. */
  async function receive(provider: WebhookProvider, request: IncomingRequest): Promise<HookAnswer> {
    const declared = providers[provider];
    if (!request.rawBody || request.rawBody.length === 0 || request.body === undefined) {
      throw validationFailed([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
    }
    // The gate verified it, or let it in unsigned only where that is allowed; never anything else.
    if (!request.verified && (settings.secrets[provider] || !settings.allowUnsigned))
      throw new Error(`${provider} delivery reached the pipeline unverified`);
    const delivery: InboundDelivery = {
      headers: request.headers,
      rawBody: request.rawBody,
      body: request.body as Record<string, unknown>,
    };
    const now = clock.now();
    const refusal = request.verified ? await admission.checkBody(provider, delivery.body) : undefined;
    if (refusal !== undefined) throw new AppError('unauthenticated', refusal);

    const identity = declared.identify(delivery);
    const { event } = identity;
    // A delivery with no id at all is named by its body alone.
    const windowMs = identity.sameBodyWindowMs ?? (identity.senderId ? undefined : RETRY_WINDOW_MS);
    let deliveryId = identity.senderId ?? '';

    /** Stores the delivery and applies it; a refusal rolls the transaction back, so nothing is kept. */
    const store = async (tx: DbExecutor): Promise<Handled> => {
      const stored = {
        provider,
        event,
        payload: declared.redact(delivery.body),
        verified: request.verified,
        receivedAt: now,
      };
      let claim: Claim;
      if (windowMs !== undefined) {
        const content = { digest: bodyDigest(delivery.rawBody), windowMs };
        ({ claim, deliveryId } = await repo.claimByContent({ ...stored, senderId: identity.senderId }, content, tx));
      } else {
        claim = await repo.claim({ ...stored, deliveryId }, tx);
      }
      const base = { now, provider, deliveryId, event, body: delivery.body, headers: delivery.headers };
      if (claim === 'duplicate')
        return { status: 'duplicate', answer: (await declared.replay?.(contextFor(tx, declared, base))) ?? undefined };
      let outcome: Outcome;
      try {
        // A savepoint: failed effects are undone, but the delivery and its failure stay recorded.
        outcome = await tx.transaction(async (effects) => declared.apply(contextFor(effects, declared, base)));
      } catch (error) {
        await repo.finish(
          { provider, deliveryId },
          { status: 'failed', error: rootMessage(error).slice(0, 1000), at: now },
          tx,
        );
        return { status: 'failed', error };
      }
      if (outcome.status === 'refused') return outcome;
      await repo.finish({ provider, deliveryId }, { status: outcome.status, error: null, at: now }, tx);
      return outcome;
    };

    const handled = await db
      .transaction(async (tx) => {
        const result = await store(tx);
        // Thrown through the transaction, so the stored delivery is rolled back with the effects.
        if (result.status === 'refused') throw new RefusedDelivery(result);
        return result;
      })
      .catch((error: unknown) => {
        if (error instanceof RefusedDelivery) return error.outcome;
        throw error;
      });

    // A refused delivery is not stored (its transaction rolled back): nothing was received.
    if (handled.status === 'refused') return handled.answer;
    await deps.events.admins('webhook.received', { provider, event, delivery_id: deliveryId, status: handled.status });
    if (handled.status === 'failed') {
      logger.warn({ provider, deliveryId, event }, 'webhook delivery failed; the sender will retry it');
      throw new AppError('internal', 'Internal Server Error', { cause: handled.error });
    }
    return (
      handled.answer ?? { status: 200, body: { status: handled.status, provider, event, delivery_id: deliveryId } }
    );
  }

  /** Deliveries received since a time, in total and per provider (every provider listed). */
  async function deliveryStats(since: Date): Promise<{ total: number; byProvider: Record<string, number> }> {
    const counts = await repo.countsSince(since);
    const byProvider = Object.fromEntries(WEBHOOK_PROVIDERS.map((p) => [p, counts[p] ?? 0]));
    return { total: Object.values(byProvider).reduce((sum, n) => sum + n, 0), byProvider };
  }

  /** The last delivery refused at the gate (kept in the cache; none when the cache is down). */
  async function lastRefusal(provider: WebhookProvider): Promise<LastRefusal> {
    const kept = await cache.get<RecordedRefusal>(refusalKey(provider)).catch(() => undefined);
    return { lastRefusedAt: kept ? new Date(kept.at) : null, lastRefusal: kept?.reason ?? null };
  }

  /**
   * Per provider: when the last delivery came, and whether it stands in error now: the latest error
   * weighed against the last processing attempt (none once an attempt after it succeeded).
   */
  async function lastDeliveryTimes(): Promise<Record<string, LastDelivery>> {
    const activity = new Map((await repo.activity()).map((row) => [row.provider, row]));
    const result: Record<string, LastDelivery> = {};
    for (const provider of WEBHOOK_PROVIDERS) {
      const row = activity.get(provider);
      result[provider] = {
        lastDeliveryAt: row?.lastDeliveryAt ?? null,
        lastError: row?.lastError ?? null,
        ...(await lastRefusal(provider)),
      };
    }
    return result;
  }

  /** Per provider, the last delivery and the error it stands in now, the times as ISO strings. */
  async function lastDeliveries(): Promise<
    Record<string, { lastDeliveryAt: string | null; lastError: string | null; lastRefusedAt: string | null }>
  > {
    const times = await lastDeliveryTimes();
    return Object.fromEntries(
      Object.entries(times).map(([provider, last]) => [
        provider,
        { lastDeliveryAt: iso(last.lastDeliveryAt), lastError: last.lastError, lastRefusedAt: iso(last.lastRefusedAt) },
      ]),
    );
  }

  const configured = (provider: WebhookProvider) => Boolean(settings.secrets[provider]);

  /**
   * For the dashboard, every provider: whether its secret is set (never the secret), the last
   * delivery, the last one processed, and the latest error with its time: the latest error weighed
   * against the last processing failure (the last success is beside it).
   */
  async function providerStatus(): Promise<ProviderStatus[]> {
    const [activity, outcomes] = await Promise.all([repo.activity(), repo.outcomes()]);
    return Promise.all(
      WEBHOOK_PROVIDERS.map(async (provider) => {
        const received = activity.find((row) => row.provider === provider);
        const outcome = outcomes.find((row) => row.provider === provider);
        return {
          provider,
          secretConfigured: configured(provider),
          lastDeliveryAt: received?.lastDeliveryAt ?? null,
          lastSuccessAt: outcome?.lastSuccessAt ?? null,
          lastErrorAt: outcome?.lastFailureAt ?? null,
          lastError: outcome?.lastFailure ?? null,
          ...(await lastRefusal(provider)),
        };
      }),
    );
  }

  /** Per platform provider: can it receive (secret set), and how did its last delivery go. */
  async function platformsHealth(): Promise<PlatformsReadiness> {
    const [last, unmatched] = await Promise.all([lastDeliveryTimes(), repo.unmatchedCounts()]);
    const platforms = WEBHOOK_PROVIDERS.filter((p) => p !== 'mailer');
    const providers = platforms.map((provider) => ({
      provider,
      secretConfigured: configured(provider),
      ...last[provider]!,
      unmatched: unmatched[provider] ?? 0,
    }));
    const ready = settings.allowUnsigned || platforms.every(configured);
    return { ready, allowUnsigned: settings.allowUnsigned, providers };
  }

  /** The mail-event receiver's readiness. */
  async function mailerHealth(): Promise<MailerReadiness> {
    const last = (await lastDeliveryTimes()).mailer!;
    return {
      secretConfigured: configured('mailer'),
      allowUnsigned: settings.allowUnsigned,
      lastDeliveryAt: last.lastDeliveryAt,
    };
  }

  return { receive, deliveryStats, lastDeliveries, providerStatus, platformsHealth, mailerHealth };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
