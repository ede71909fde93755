// The gate a delivery passes before its body is stored, and before it is even read or parsed
// (decision 060): a receiver without a secret answers 503 at once; headers that already fail the
// scheme (no signature, a wrong bearer) answer 401 at once; otherwise the body must carry the
// signature the headers announce, checked over its bytes as they arrive, and only then is it
// parsed. Refusals are logged at warn, without stack, body or signature, rate-limited per provider
// and reason; the latest one per provider is kept for the dashboard, apart from its errors and at most
// once a minute per provider (decision 990).
import type { Logger } from 'pino';
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Headers } from './providers/provider.ts';
import type { ProviderDeclaration, WebhookProvider } from './providers/registry.ts';
import { createRefusalTally, type RefusalLine, type RefusalReason } from './refusal-log.domain.ts';
import { isVerdict, type BodySignature, type Refused, type Verdict } from './signatures.ts';

export interface WebhookSettings {
  allowUnsigned: boolean;
  /** Each provider's secret, read by config from the variable its declaration names. */
  secrets: Readonly<Record<WebhookProvider, string | undefined>>;
}

/** What a delivery's headers decide, before its body is read. */
export type Gate =
  | { open: false; status: 401 | 503; detail: string }
  /** `verified`: a secret is set and the delivery proves it (or must, through `signature`, with its body). */
  | { open: true; verified: boolean; signature?: BodySignature };

/**
 * A refused delivery is not stored (anyone can send one), but the dashboard should see the latest, apart
 * from the provider's errors (a stranger's refusal is not one) and written at most once per provider per
 * interval, so that a stream of refusals costs no cache write each (decision 990).
 */
const REFUSAL_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const REFUSAL_RECORD_INTERVAL_MS = 60_000;
export const refusalKey = (provider: string) => `webhooks:refusal:${provider}`;

/** The latest refusal kept for a provider: when, and the reason its 401 gave. */
export interface RecordedRefusal {
  at: string;
  reason: string;
}

/** How often the count of refusals after the first is logged, per provider and reason. */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;

export function createAdmissionService(deps: {
  providers: Readonly<Record<WebhookProvider, Pick<ProviderDeclaration, 'name' | 'signature' | 'checkBody'>>>;
  settings: WebhookSettings;
  clock: Clock;
  cache: Pick<Cache, 'set'>;
  logger: Pick<Logger, 'warn'>;
}) {
  const { providers, settings, clock, cache, logger } = deps;
  const tally = createRefusalTally(REFUSAL_LOG_INTERVAL_MS);
  /** Per provider, when this process last wrote its refusal to the cache. */
  const recorded = new Map<WebhookProvider, number>();

  function write(lines: RefusalLine[]): void {
    for (const line of lines) {
      if (line.kind === 'first')
        logger.warn({ provider: line.provider, reason: line.reason }, 'webhook delivery rejected');
      else
        logger.warn(
          { provider: line.provider, reason: line.reason, rejected: line.count, since: line.since.toISOString() },
          'webhook deliveries rejected',
        );
    }
  }

  function note(provider: WebhookProvider, reason: RefusalReason): void {
    write(tally.note(provider, reason, clock.now()));
  }

  /** Logs and records a refused delivery; answers the `detail` of its 401. */
  async function reject(provider: WebhookProvider, verdict: Refused): Promise<string> {
    const now = clock.now();
    note(provider, verdict.reason);
    const last = recorded.get(provider);
    if (last === undefined || now.getTime() - last >= REFUSAL_RECORD_INTERVAL_MS) {
      recorded.set(provider, now.getTime());
      const refusal: RecordedRefusal = { at: now.toISOString(), reason: verdict.message };
      await cache.set(refusalKey(provider), refusal, REFUSAL_TTL_MS).catch(() => undefined);
    }
    return verdict.message;
  }

  const refusal = async (provider: WebhookProvider, verdict: Verdict): Promise<string | undefined> =>
    verdict.ok ? undefined : reject(provider, verdict);

  // Counts are logged when their interval ends even if no refusal follows; the timer never keeps the process up.
  const timer = setInterval(() => write(tally.due(clock.now())), REFUSAL_LOG_INTERVAL_MS);
  timer.unref();

  return {
    /** From the headers alone, before a byte of the body is read. */
    async admit(provider: WebhookProvider, headers: Headers): Promise<Gate> {
      const declared = providers[provider];
      const secret = settings.secrets[provider];
      if (!secret) {
        if (settings.allowUnsigned) return { open: true, verified: false };
        note(provider, 'unconfigured');
        return { open: false, status: 503, detail: `${declared.name} webhook secret is not configured` };
      }
      const check = declared.signature(headers, secret);
      if (!isVerdict(check)) return { open: true, verified: true, signature: check };
      const detail = await refusal(provider, check);
      return detail === undefined ? { open: true, verified: true } : { open: false, status: 401, detail };
    },

    /**
     * The body's MAC, computed as it arrived, against the signature its headers announced:
     * the 401's `detail`, or nothing.
     */
    judge(provider: WebhookProvider, signature: BodySignature, mac: Buffer): Promise<string | undefined> {
      return refusal(provider, signature.judge(mac, clock.now()));
    },

    /**
     * What a verified body must say of itself once parsed (Linear's signed send time): the 401's `detail`, or nothing.
     */
    async checkBody(provider: WebhookProvider, body: Record<string, unknown>): Promise<string | undefined> {
      const check = providers[provider].checkBody;
      return check ? refusal(provider, check(body, clock.now())) : undefined;
    },

    /** Logs a body refused because unverified bodies held all the room they may (decision 961). */
    busy(provider: WebhookProvider): void {
      note(provider, 'busy');
    },

    /** Logs the counts still open (at shutdown) and stops the timer. */
    close(): void {
      clearInterval(timer);
      write(tally.due());
    },
  };
}

export type AdmissionService = ReturnType<typeof createAdmissionService>;
