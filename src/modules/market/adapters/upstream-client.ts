// The HTTP client of one market-data upstream: it translates the upstream's failures into our
// errors, so that no caller sees a library exception. Its calls go through the venue's one guarded
// fetch (src/platform/venue-budget, decision 174), the same budget, weights and breaker as every
// other caller of the venue: a call the budget or the open breaker refuses is never sent, a 429 or
// 418 opens the breaker until Retry-After for everyone, and this client reports failures (5xx,
// timeouts, unreachable, answers of the wrong shape) so that five in a row open it for 30 s.
// Timeouts answer 504, refused connections and an open breaker 503, upstream errors 502.
import type { Clock } from '../../../platform/clock.ts';
import { readBoundedBody } from '../../../platform/http/bounded-body.ts';
import { AppError, unavailable } from '../../../platform/http/errors.ts';
import { transportFailureOf } from '../../../platform/transport-failures.ts';
import { isAnswerTooLarge, MAX_ANSWER_BYTES } from '../../../platform/venue-budget/http-transport.ts';
import type { GuardedFetch } from '../../../platform/venue-budget/guarded-fetch.ts';
import type { VenueBudget } from '../../../platform/venue-budget/venue-budget.ts';
import type { UpstreamUsage } from '../market.types.ts';

interface UpstreamClientOptions {
  /** Human name used in error details, e.g. Binance. */
  name: string;
  baseUrl: string;
  /** The venue's budget and breaker, and the guarded fetch that goes through them. */
  venue: { budget: VenueBudget; fetch: GuardedFetch };
  clock: Clock;
  timeoutMs: number;
  headers?: Record<string, string>;
  /** A sentence out of the upstream's error body. */
  describeError?: (body: unknown) => string | undefined;
}

/** An upstream answered with an HTTP error; callers may map particular answers (e.g. unknown symbol). */
/** The upstream's own answers that say it is down or overloaded for now: an outage, not a bug (decision 405). */
const OUTAGE_STATUSES = new Set([502, 503, 504]);

export class UpstreamHttpError extends AppError {
  constructor(
    detail: string,
    readonly upstreamStatus: number,
    readonly upstreamBody: unknown,
    dependency?: string,
  ) {
    super(
      'upstream_error',
      detail,
      dependency !== undefined && OUTAGE_STATUSES.has(upstreamStatus)
        ? { outage: { dependency, failure: 'venue_5xx', code: `HTTP ${upstreamStatus}` } }
        : {},
    );
  }
}

type Params = Record<string, string | number | undefined>;

/**
 * An upstream's answer is read up to this (decision 1042): Binance's largest, exchangeInfo without
 * permission sets, is a few MiB. An answer without end is abandoned there, not held whole.
 */
export const UPSTREAM_MAX_BODY_BYTES = MAX_ANSWER_BYTES;

/** What a successful answer must look like; a 200 of another shape is the upstream's fault (502). */
type BodyShape = (body: unknown) => boolean;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const shapes = {
  record: isRecord as BodyShape,
  listOf:
    (item: BodyShape): BodyShape =>
    (body) =>
      Array.isArray(body) && body.every(item),
  withLists:
    (...fields: string[]): BodyShape =>
    (body) =>
      isRecord(body) && fields.every((f) => Array.isArray(body[f])),
  withRecord:
    (field: string): BodyShape =>
    (body) =>
      isRecord(body) && isRecord(body[field]),
};

export class UpstreamClient {
  private calls = 0;
  private failures = 0;
  private lastSuccessAt: number | null = null;
  private lastFailureAt: number | null = null;
  private lastError: string | null = null;

  constructor(private readonly options: UpstreamClientOptions) {}

  async get<T>(path: string, shape: BodyShape, params: Params = {}): Promise<T> {
    const { name, timeoutMs, venue } = this.options;
    const url = new URL(`${this.options.baseUrl}${path}`);
    for (const [key, value] of Object.entries(params))
      if (value !== undefined) url.searchParams.set(key, String(value));

    let response: Response;
    let text: string;
    try {
      response = await venue.fetch(url, {
        headers: { accept: 'application/json', ...this.options.headers },
        timeoutMs,
      });
    } catch (error) {
      // Refused by the budget or the breaker: nothing was sent, the upstream's health is not in question.
      if (error instanceof AppError) throw error;
      this.calls += 1;
      throw await this.transportFailure(error);
    }
    this.calls += 1;
    try {
      const read = await readBoundedBody(response, UPSTREAM_MAX_BODY_BYTES);
      if (read.truncated)
        throw await this.failed(
          new AppError('upstream_error', `${name} answered more than ${UPSTREAM_MAX_BODY_BYTES} bytes`),
        );
      text = read.text;
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw await this.transportFailure(error);
    }

    if (response.status === 429 || response.status === 418) {
      // The guarded fetch has opened the venue's breaker; answer as every later call will.
      const refusal = venue.budget.refusal() ?? unavailable(`${name} answered HTTP ${response.status} (rate limit)`);
      throw await this.failed(refusal, false);
    }
    const body = parseJson(text);
    if (!response.ok) {
      const said = this.options.describeError?.(body);
      const error = new UpstreamHttpError(
        `${name} answered HTTP ${response.status}${said ? `: ${said}` : ''}`,
        response.status,
        body,
        name,
      );
      // A 4xx is about the request, not the upstream's health.
      throw response.status >= 500 ? await this.failed(error) : error;
    }
    if (body === undefined)
      throw await this.failed(new AppError('upstream_error', `${name} answered with a body that is not JSON`));
    if (!shape(body))
      throw await this.failed(
        new AppError('upstream_error', `${name} answered ${path} with a body of an unexpected shape`),
      );
    venue.budget.succeeded();
    this.lastSuccessAt = this.now();
    return body as T;
  }

  /** This client's calls, with the venue's breaker and budget as this instance last saw them. */
  usage(): UpstreamUsage {
    const budget = this.options.venue.budget.snapshot();
    const breaker = budget.breaker;
    return {
      name: this.options.name,
      breakerOpen: breaker !== null,
      breakerUntil: breaker ? breaker.until : null,
      breakerReason: breaker ? breaker.reason : null,
      consecutiveFailures: budget.consecutiveFailures,
      calls: this.calls,
      failures: this.failures,
      lastSuccessAt: this.lastSuccessAt,
      lastFailureAt: this.lastFailureAt,
      lastError: this.lastError,
      usedWeight1m: budget.modelled ? budget.usedWeight1m : null,
      weightLimit1m: budget.modelled ? budget.limit1m : null,
      weightBudget1m: budget.modelled ? budget.cap1m : null,
    };
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }

  private transportFailure(error: unknown): Promise<AppError> {
    const { name, timeoutMs } = this.options;
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      return this.failed(
        new AppError('upstream_timeout', `${name} did not answer within ${timeoutMs} ms`, {
          cause: error,
          outage: { dependency: name, failure: 'timeout', code: error.name },
        }),
      );
    }
    // The transport abandoned an answer past its bound (decision 1140): the upstream's failure, as a larger answer read here is.
    if (isAnswerTooLarge(error))
      return this.failed(new AppError('upstream_error', `${name} answered more than ${UPSTREAM_MAX_BODY_BYTES} bytes`));
    // Without a socket's code it is no outage but a failure of ours, logged with its stack (decision 396).
    const transport = transportFailureOf(error);
    return this.failed(
      unavailable(`${name} is unreachable`, {
        cause: error,
        ...(transport ? { outage: { dependency: name, ...transport } } : {}),
      }),
    );
  }

  private async failed(error: AppError, countsTowardsBreaker = true): Promise<AppError> {
    this.failures += 1;
    this.lastFailureAt = this.now();
    this.lastError = typeof error.detail === 'string' ? error.detail : error.code;
    if (countsTowardsBreaker) await this.options.venue.budget.failed();
    return error;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
