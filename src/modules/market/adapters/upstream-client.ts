// The HTTP client of one market-data upstream. It keeps the upstream's budget and translates its
// failures into our errors, so that no caller sees a library exception:
// - 429 and 418 open a circuit until Retry-After has passed (shared through the cache when it is
//   Redis, so every instance holds back); five failures in a row open it for 30 s;
// - an upstream with a request-weight budget (Binance) charges every call to the venue budget it
//   shares with the exchange module and every instance (src/platform/venue-budget): a call that
//   would take the minute's usage above it is refused before it is made, the used weight the
//   upstream reports (X-MBX-USED-WEIGHT-1M) corrects the count, and a 429/418 stops every caller;
// - timeouts answer 504, refused connections and open circuits 503, upstream errors 502.
import type { Cache } from '../../../platform/cache/cache.ts';
import type { Clock } from '../../../platform/clock.ts';
import { AppError, unavailable } from '../../../platform/http/errors.ts';
import { retryAfterMs } from '../../../platform/http/retry-after.ts';
import { BudgetRefusal, type VenueBudget } from '../../../platform/venue-budget/venue-budget.ts';
import type { UpstreamUsage } from '../market.types.ts';

export const CIRCUIT = {
  failuresToOpen: 5,
  openAfterFailuresMs: 30_000,
  /** When a 429 or 418 carries no Retry-After. */
  defaultRetryAfterMs: { 429: 60_000, 418: 120_000 } as Record<number, number>,
};

export interface UpstreamClientOptions {
  /** Human name used in error details, e.g. Binance. */
  name: string;
  baseUrl: string;
  fetch: typeof fetch;
  clock: Clock;
  timeoutMs: number;
  headers?: Record<string, string>;
  /** Where an open circuit is published for other instances. */
  shared?: Pick<Cache, 'get' | 'set'>;
  /** The venue budget every call is charged to, and the response header carrying the venue's count. */
  weight?: { budget: VenueBudget; header: string };
  /** A sentence out of the upstream's error body. */
  describeError?: (body: unknown) => string | undefined;
}

/** An upstream answered with an HTTP error; callers may map particular answers (e.g. unknown symbol). */
export class UpstreamHttpError extends AppError {
  constructor(
    detail: string,
    readonly upstreamStatus: number,
    readonly upstreamBody: unknown,
  ) {
    super('upstream_error', detail);
  }
}

type Params = Record<string, string | number | undefined>;

/** What a successful answer must look like; a 200 of another shape is the upstream's fault (502). */
export type BodyShape = (body: unknown) => boolean;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const shapes = {
  record: isRecord as BodyShape,
  listOf: (item: BodyShape): BodyShape => (body) => Array.isArray(body) && body.every(item),
  withLists: (...fields: string[]): BodyShape => (body) => isRecord(body) && fields.every((f) => Array.isArray(body[f])),
  withRecord: (field: string): BodyShape => (body) => isRecord(body) && isRecord(body[field]),
};

export class UpstreamClient {
  private openUntil: number | null = null;
  private openReason: string | null = null;
  private consecutiveFailures = 0;
  private calls = 0;
  private failures = 0;
  private lastSuccessAt: number | null = null;
  private lastFailureAt: number | null = null;
  private lastError: string | null = null;

  constructor(private readonly options: UpstreamClientOptions) {}

  /** The upstream told us its real limit (Binance: exchangeInfo rateLimits). */
  setWeightLimit(limit: number): void {
    this.options.weight?.budget.setLimit(limit);
  }

  async get<T>(path: string, shape: BodyShape, params: Params = {}, weight = 1): Promise<T> {
    const { name, timeoutMs } = this.options;
    await this.checkCircuit();
    await this.reserveWeight(weight);
    const url = new URL(`${this.options.baseUrl}${path}`);
    for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, String(value));

    this.calls += 1;
    let response: Response;
    let text: string;
    try {
      response = await this.options.fetch(url, { headers: { accept: 'application/json', ...this.options.headers }, signal: AbortSignal.timeout(timeoutMs) });
      text = await response.text();
    } catch (error) {
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
        // The upstream may have counted it; keep the weight.
        throw this.failed(new AppError('upstream_timeout', `${name} did not answer within ${timeoutMs} ms`, { cause: error }));
      }
      await this.options.weight?.budget.release(weight).catch(() => undefined);
      throw this.failed(unavailable(`${name} is unreachable`, { cause: error }));
    }
    await this.readWeight(response.headers);

    if (response.status === 429 || response.status === 418) {
      const pauseMs = retryAfterMs(response.headers) ?? CIRCUIT.defaultRetryAfterMs[response.status]!;
      const reason = response.status === 418 ? 'HTTP 418 (IP banned for exceeding its rate limit)' : 'HTTP 429 (rate limit)';
      await this.options.weight?.budget.trip(response.status, pauseMs).catch(() => undefined);
      await this.open(pauseMs, reason);
      throw this.failed(this.openError(), false);
    }
    const body = parseJson(text);
    if (!response.ok) {
      const said = this.options.describeError?.(body);
      const error = new UpstreamHttpError(`${name} answered HTTP ${response.status}${said ? `: ${said}` : ''}`, response.status, body);
      // A 4xx is about the request, not the upstream's health.
      throw response.status >= 500 ? this.failed(error) : error;
    }
    if (body === undefined) throw this.failed(new AppError('upstream_error', `${name} answered with a body that is not JSON`));
    if (!shape(body)) throw this.failed(new AppError('upstream_error', `${name} answered ${path} with a body of an unexpected shape`));
    this.consecutiveFailures = 0;
    this.lastSuccessAt = this.now();
    return body as T;
  }

  usage(): UpstreamUsage {
    const open = this.openUntil !== null && this.openUntil > this.now();
    const budget = this.options.weight?.budget.snapshot();
    return {
      name: this.options.name,
      circuit: open ? 'open' : 'closed',
      openUntil: open ? this.openUntil : null,
      openReason: open ? this.openReason : null,
      consecutiveFailures: this.consecutiveFailures,
      calls: this.calls,
      failures: this.failures,
      lastSuccessAt: this.lastSuccessAt,
      lastFailureAt: this.lastFailureAt,
      lastError: this.lastError,
      usedWeight1m: budget ? budget.usedWeight1m : null,
      weightLimit1m: budget ? budget.limit1m : null,
      weightBudget1m: budget ? budget.cap1m : null,
    };
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }

  private sharedKey(): string {
    return `market:circuit:${this.options.name.toLowerCase()}`;
  }

  private async checkCircuit(): Promise<void> {
    const now = this.now();
    const { shared } = this.options;
    if ((this.openUntil === null || this.openUntil <= now) && shared) {
      const published = await shared.get<{ until: number; reason: string }>(this.sharedKey()).catch(() => undefined);
      if (published && published.until > now) {
        this.openUntil = published.until;
        this.openReason = published.reason;
      }
    }
    if (this.openUntil !== null && this.openUntil > now) throw this.openError();
  }

  private openError(): AppError {
    const seconds = Math.max(1, Math.ceil(((this.openUntil ?? this.now()) - this.now()) / 1000));
    return unavailable(
      `${this.options.name} is not being called for ${seconds} s after ${this.openReason ?? 'repeated failures'}`,
      { headers: { 'retry-after': String(seconds) } },
    );
  }

  private async open(forMs: number, reason: string): Promise<void> {
    this.openUntil = this.now() + forMs;
    this.openReason = reason;
    await this.options.shared?.set(this.sharedKey(), { until: this.openUntil, reason }, forMs).catch(() => undefined);
  }

  private failed(error: AppError, countsTowardsCircuit = true): AppError {
    this.failures += 1;
    this.lastFailureAt = this.now();
    this.lastError = typeof error.detail === 'string' ? error.detail : error.code;
    if (countsTowardsCircuit) {
      this.consecutiveFailures += 1;
      if (this.consecutiveFailures >= CIRCUIT.failuresToOpen) {
        void this.open(CIRCUIT.openAfterFailuresMs, `${this.consecutiveFailures} failures in a row`);
      }
    }
    return error;
  }

  /** Refused by the shared budget: nothing was sent, so the upstream's health is not in question. */
  private async reserveWeight(weight: number): Promise<void> {
    try {
      await this.options.weight?.budget.acquire(weight);
    } catch (error) {
      if (error instanceof BudgetRefusal) throw error;
      throw unavailable(`${this.options.name} request weight budget could not be checked`, { cause: error });
    }
  }

  /** The upstream's count covers every client behind our IP, so it raises our own tally. */
  private async readWeight(headers: Headers): Promise<void> {
    const header = this.options.weight?.header;
    const raw = header ? headers.get(header) : null;
    if (raw !== null && Number.isFinite(Number(raw))) await this.options.weight!.budget.settle(Number(raw)).catch(() => undefined);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
