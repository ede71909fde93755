// The one way to a venue (docs/decisions/110, 174): every caller of a venue (each user's ccxt
// instance, the market module's client) sends through this fetch. Each request is charged to the
// venue's shared budget before it leaves, the venue's own count corrects it after, an answer that
// states the venue's limit sets it, and a 429 or 418 opens the venue's one breaker until its
// Retry-After. A refusal is thrown as the BudgetRefusal it is (503 with Retry-After); nothing was sent.
// What a venue's requests weigh is the venue's own knowledge: its adapter code declares it
// (VenueWeights) and describes the budget with it; this file knows no venue.
import { retryAfterMs } from '../http/retry-after.ts';
import type { IpBurst } from './key-limits.ts';
import type { VenueBudget } from './venue-budget.ts';

/** A venue's documented request weights, declared beside that venue's adapter code. */
export interface VenueWeights {
  /** The venue's documented per-minute limit, until the venue states its own. */
  readonly defaultLimit: number;
  /** What one request costs, before it is sent. */
  weigh(url: URL): number;
  /** The venue's own count of the minute's weight after a call, when its answer carries one. */
  usedWeight(headers: Headers): number | undefined;
  /**
   * The venue's shorter window per IP beside its minute (OKX's 2 s), or its decaying counter per IP
   * (Kraken's public calls, about one a second; decision 1040): calls wait for room in it, in the order
   * they came, at most the budget's longest wait (decision 980).
   */
  readonly burst?: IpBurst;
  /** Which answers state the venue's limit (read from a copy of their body), and how to read it. */
  readonly limit?: { statedBy(url: URL): boolean; read(body: unknown): number | undefined };
}

/** A venue whose weights are not modelled: one per request, so that only its breaker ever holds. */
const ONE_PER_REQUEST: Omit<VenueWeights, 'defaultLimit'> = { weigh: () => 1, usedWeight: () => undefined };

/** When a 429 or 418 carries no Retry-After: a 429's window is the minute, a ban lasts at least two. */
const DEFAULT_PAUSE_MS: Readonly<Record<number, number>> = { 429: 60_000, 418: 120_000 };

/** A copy of an answer's JSON body, or undefined; the caller reads the answer itself untouched. */
async function bodyOf(response: Response): Promise<unknown> {
  if (!(response.headers.get('content-type') ?? '').includes('json')) return undefined;
  return response
    .clone()
    .json()
    .catch(() => undefined);
}

/**
 * The bound of a venue's answer: AbortSignal.timeout's signal and reason, but a timer that fires late
 * because this process held its event loop (another call's first load of the venue library, seconds of
 * a busy machine's CPU in one block; decision 700) waits for one turn of I/O first, as `withTimeout`
 * does: an answer that arrived while the loop was held is read, not taken for the venue's silence. Like
 * AbortSignal.timeout's, the timer does not keep the process alive and runs out whether or not the
 * call is over (the body of an answer from Node's fetch is read under it too).
 */
function answerBound(ms: number): AbortSignal {
  const controller = new AbortController();
  const abort = () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  setTimeout(() => setImmediate(abort), ms).unref();
  return controller.signal;
}

/** A fetch whose `timeoutMs` runs from the call's admission: a wait for the budget is not the venue's slowness. */
export type GuardedFetch = (
  input: string | URL | Request,
  init?: RequestInit & { timeoutMs?: number },
) => Promise<Response>;

/**
 * `user` names whose calls these are (a user id): each is charged to that user's share of the
 * budget too (decision 200). A caller acting for a user builds its fetch with it; the platform's own
 * calls (market data, public venue data) leave it out. `key` names the venue key the calls are signed
 * with (a digest, never the key): the venue's per-key limits are counted under it (decision 255).
 */
export function guardedFetch(
  budget: VenueBudget,
  base: typeof fetch,
  caller: { user?: string; key?: string } = {},
): GuardedFetch {
  const { user, key } = caller;
  return async (input, options) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const weights = budget.weights ?? ONE_PER_REQUEST;
    const weight = weights.weigh(url);
    // A signed call is here after ccxt signed it: all its waits together fit in what the venue's receive
    // window leaves, else it is refused unsent rather than sent to be refused as stale (decision 1330).
    const signedWaitMs = key !== undefined ? budget.signedWaitMs : undefined;
    const until = signedWaitMs === undefined ? undefined : Date.now() + signedWaitMs;
    await budget.acquire(weight, user, signedWaitMs);
    const method = (options?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const keyLimits = key !== undefined && budget.keyLimits ? budget.keyLimits.of(url, method) : [];
    if (keyLimits.length > 0) {
      try {
        await budget.acquireKey(key!, keyLimits, until === undefined ? undefined : Math.max(0, until - Date.now()));
      } catch (error) {
        await budget.release(weight, user).catch(() => undefined);
        throw error;
      }
    }
    const { timeoutMs, ...init } = options ?? {};
    if (timeoutMs !== undefined) {
      const timeout = answerBound(timeoutMs);
      init.signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    }
    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      // Refused or unreachable: nothing arrived, nothing is owed. A timeout may have arrived: kept.
      const name = (error as Error | undefined)?.name;
      if (name !== 'AbortError' && name !== 'TimeoutError') {
        await budget.release(weight, user).catch(() => undefined);
        if (keyLimits.length > 0) await budget.releaseKey(key!, keyLimits).catch(() => undefined);
      }
      throw error;
    }
    if (keyLimits.length > 0 && budget.keyLimits!.exceeded(response.status, await bodyOf(response))) {
      // Other clients of the key spent it: the key waits for room as the venue's own counter would.
      await budget.fillKey(key!, keyLimits).catch(() => undefined);
    }
    if (response.status === 429 || response.status === 418) {
      await budget
        .trip(response.status, retryAfterMs(response.headers) ?? DEFAULT_PAUSE_MS[response.status]!)
        .catch(() => undefined);
    }
    // The venue's own count raises the shared one without holding the answer back: this instance's view
    // has it at once, and the command goes out before any later call's admission (decision 462).
    const used = weights.usedWeight(response.headers);
    if (used !== undefined) void budget.settle(used).catch(() => undefined);
    if (response.ok && weights.limit?.statedBy(url)) {
      const limit = weights.limit.read(
        await response
          .clone()
          .json()
          .catch(() => undefined),
      );
      if (limit !== undefined) budget.setLimit(limit);
    }
    return response;
  };
}
