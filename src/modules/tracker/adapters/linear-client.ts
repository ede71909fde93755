// Linear's GraphQL transport and the translation of its failures into our errors (decision 053):
// rate limiting → 429 with Retry-After (and no call until then), a refused key → 502, unreachable → 503,
// too slow → 504.
// Linear being away (unreachable, too slow, its own 502/503/504) is an outage, logged as one warning;
// its HTTP 500 and failures no socket code explains stay errors with their stack (decisions 396, 405, 408).
import type { Cache } from '../../../platform/cache/cache.ts';
import type { Clock } from '../../../platform/clock.ts';
import { readBoundedBody } from '../../../platform/http/bounded-body.ts';
import { AppError, rateLimited, unavailable } from '../../../platform/http/errors.ts';
import { transportFailureOf } from '../../../platform/transport-failures.ts';

const DEPENDENCY = 'Linear';
/** Linear's (or its edge's) answers that say it is down or overloaded for now. */
const OUTAGE_STATUSES = new Set([502, 503, 504]);
/**
 * The largest answer read from Linear (decision 986): a page of issues at the list's bound is well under
 * 1 MiB; past this the read stops, so an endless body cannot make the service hold it.
 */
export const LINEAR_MAX_BODY_BYTES = 4 * 1024 * 1024;

interface GraphQLError {
  message?: string;
  extensions?: { code?: string; userPresentableMessage?: string };
}

interface GraphQLBody {
  data?: unknown;
  errors?: GraphQLError[];
}

/** Linear refused the input (INVALID_INPUT), e.g. an unknown id; callers decide between 404 and 422. */
export class LinearInputError extends Error {
  override name = 'LinearInputError';
  get notFound(): boolean {
    return /not found|could not find/i.test(this.message);
  }
}

export interface LinearClient {
  /** `signal` ends the call (and refuses to start one) with its reason, which callers make an AppError. */
  request<T>(query: string, variables?: Record<string, unknown>, signal?: AbortSignal): Promise<T>;
}

interface LinearClientOptions {
  apiUrl: string;
  /** A personal key is sent as-is (no `Bearer`); an OAuth token may be configured as `Bearer <token>`. */
  apiKey: string;
  fetch: typeof fetch;
  timeoutMs: number;
  clock: Clock;
  /**
   * Where the wait Linear announced is shared between instances (decision 1012): with Redis, one
   * instance's 429 pauses every instance; the process-memory cache shares nothing, the client's own
   * record of the wait is enough there.
   */
  cache?: Pick<Cache, 'kind' | 'get' | 'raiseTo'>;
}

const DEFAULT_RETRY_AFTER_SECONDS = 60;
/** The shared end of Linear's announced wait (epoch ms by the app's clock), raised, never lowered. */
export const LINEAR_PAUSE_KEY = 'tracker:linear:paused-until';

export function createLinearClient(options: LinearClientOptions): LinearClient {
  const { apiUrl, apiKey, timeoutMs, clock } = options;

  const upstreamFailed = (error: unknown): AppError => {
    if (error instanceof AppError) return error;
    if (isTimeout(error)) {
      return new AppError('upstream_timeout', `The issue tracker did not answer within ${timeoutMs} ms`, {
        cause: error,
        outage: { dependency: DEPENDENCY, failure: 'timeout', code: 'TimeoutError' },
      });
    }
    const transport = transportFailureOf(error);
    return unavailable('The issue tracker could not be reached', {
      cause: error,
      ...(transport ? { outage: { dependency: DEPENDENCY, ...transport } } : {}),
    });
  };

  /**
   * Until when (epoch ms, by the clock) Linear told us to wait. Within it every request is answered 429 here:
   * Linear would refuse it, and each refused call still spends the key's allowance (decision 952).
   */
  let pausedUntil = 0;
  const shared = options.cache?.kind === 'redis' ? options.cache : undefined;
  /**
   * The later of this instance's wait and the one shared through Redis. Redis failing (the cache logs its
   * outage) leaves this instance's own: at worst each instance learns the wait from its own 429 again.
   */
  async function waitingUntil(): Promise<number> {
    if (!shared) return pausedUntil;
    const until = await shared.get<number>(LINEAR_PAUSE_KEY).catch(() => undefined);
    return typeof until === 'number' && Number.isFinite(until) ? Math.max(pausedUntil, until) : pausedUntil;
  }
  async function pauseUntil(until: number): Promise<void> {
    pausedUntil = Math.max(pausedUntil, until);
    const ttlMs = until - clock.now().getTime();
    if (shared && ttlMs > 0) await shared.raiseTo(LINEAR_PAUSE_KEY, until, ttlMs).catch(() => {});
  }
  const RATE_LIMITED = 'The issue tracker is rate limiting our requests; try again later';

  return {
    async request<T>(query: string, variables: Record<string, unknown> = {}, signal?: AbortSignal): Promise<T> {
      signal?.throwIfAborted();
      const waitMs = (await waitingUntil()) - clock.now().getTime();
      if (waitMs > 0) throw rateLimited(Math.ceil(waitMs / 1000), RATE_LIMITED);
      let status: number;
      let headers: Headers;
      let body: GraphQLBody | undefined;
      try {
        const response = await options.fetch(apiUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', authorization: apiKey },
          body: JSON.stringify({ query, variables }),
          signal: signal ? AbortSignal.any([AbortSignal.timeout(timeoutMs), signal]) : AbortSignal.timeout(timeoutMs),
        });
        status = response.status;
        headers = response.headers;
        const { text, truncated } = await readBoundedBody(response, LINEAR_MAX_BODY_BYTES);
        if (truncated)
          throw new AppError('upstream_error', `The issue tracker answered more than ${LINEAR_MAX_BODY_BYTES} bytes`);
        body = parseJson(text);
      } catch (error) {
        throw signal?.aborted ? signal.reason : upstreamFailed(error);
      }

      const first = body?.errors?.[0];
      const code = first?.extensions?.code;
      const message = first?.extensions?.userPresentableMessage ?? first?.message ?? `HTTP ${status}`;
      if (code === 'RATELIMITED' || status === 429) {
        const seconds = retryAfterSeconds(headers, clock.now());
        await pauseUntil(clock.now().getTime() + seconds * 1000);
        throw rateLimited(seconds, RATE_LIMITED);
      }
      if (code === 'AUTHENTICATION_ERROR' || code === 'FORBIDDEN' || status === 401 || status === 403) {
        throw new AppError('upstream_error', `The issue tracker refused our credentials (TRACKER_API_KEY): ${message}`);
      }
      if (status >= 500) {
        throw new AppError('upstream_error', `The issue tracker failed with HTTP ${status}`, {
          ...(OUTAGE_STATUSES.has(status)
            ? { outage: { dependency: DEPENDENCY, failure: 'venue_5xx', code: `HTTP ${status}` } }
            : {}),
        });
      }
      if (code === 'INVALID_INPUT') throw new LinearInputError(message);
      if (first || status >= 400 || body?.data === undefined || body.data === null) {
        throw new AppError('upstream_error', `The issue tracker refused the request: ${message}`);
      }
      return body.data as T;
    },
  };
}

function parseJson(text: string): GraphQLBody | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as GraphQLBody) : undefined;
  } catch {
    return undefined;
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/**
 * Seconds until Linear lets us in again. Linear announces the end of its window in
 * `X-RateLimit-Requests-Reset` (epoch milliseconds; seconds accepted too); a plain `Retry-After`
 * wins when present. Clamped to 1 s..1 h.
 */
export function retryAfterSeconds(headers: Headers, now: Date): number {
  const clamp = (seconds: number) => Math.min(3600, Math.max(1, Math.ceil(seconds)));
  const retryAfter = Number(headers.get('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) return clamp(retryAfter);
  const reset = Number(headers.get('x-ratelimit-requests-reset') ?? headers.get('x-ratelimit-complexity-reset'));
  if (Number.isFinite(reset) && reset > 0) {
    const resetMs = reset > 1e12 ? reset : reset * 1000;
    return clamp((resetMs - now.getTime()) / 1000);
  }
  return DEFAULT_RETRY_AFTER_SECONDS;
}
