// The limits a venue keeps per key (or account) and endpoint over seconds, beside the weight a venue
// counts per IP (docs/decisions/255): Kraken's call counter, OKX's per-endpoint two-second windows,
// Bybit's per-UID limits, Coinbase's per-second private limit. Each is one decaying counter per key in
// the shared store (Redis when set), so every instance serving a key draws on the same counter:
// - a venue's own decaying counter (Kraken) is modelled as what it is;
// - a count per window of T seconds (OKX, Bybit, Coinbase) as a counter holding half the count and
//   draining the other half over T: any T seconds, however the venue aligns its windows, then admit at
//   most the count;
// - both its ceiling and its drain are cut to our share (decision 430): the share is our part of the
//   key's limit, its burst and its rate, so other clients of the key keep the rest of both, and calls
//   that reach the venue up to half a window later than admitted still fit its window;
// - a call that would overflow waits for room when that is at most the budget's longest wait, else is
//   refused before it is sent (429 with Retry-After: the key's limit, not the venue's unavailability);
// - when the venue answers its limit anyway (other clients of the key), the counter is set full, so the
//   key's next calls wait for room as our share of the venue's counter would let them.
import { UserShareRefusal } from './budget-refusals.ts';
import type { Cache } from '../cache/cache.ts';

/** One counter of a venue's limit that a call draws on. */
export interface KeyLimit {
  /** Names the counter within the key: the endpoint, or `private` for a key-wide one. */
  readonly name: string;
  /** What the call costs on it. */
  readonly cost: number;
  /** The counter's ceiling as the venue states it, before our share. */
  readonly max: number;
  /** How much it drains each second, as the venue states it, before our share. */
  readonly perSecond: number;
  /** What the counter is, in words, for refusals: "call counter", "limit of /api/v5/account/balance". */
  readonly describes: string;
}

/** A venue's per-key limits, declared beside its adapter code. */
export interface VenueKeyLimits {
  /** The counters a request draws on; none for a call the venue does not count per key. */
  of(url: URL, method: string): readonly KeyLimit[];
  /** Whether an answer is the venue's own "this key is over its limit" (read from a copy of its body). */
  exceeded(status: number, body: unknown): boolean;
  /**
   * The venue counts per account, not per key (Bybit's UID): a key's calls are counted under the account
   * the venue said it belongs to, once known (decision 281), so every key of one account shares them.
   */
  readonly perAccount?: boolean;
}

/** `count` calls in any `windowMs`, as a decaying counter: half the count at once, half drained over the window. */
export function perWindow(name: string, count: number, windowMs: number, cost = 1): KeyLimit {
  return {
    name,
    cost,
    max: count / 2,
    perSecond: count / 2 / (windowMs / 1000),
    describes: `limit of ${count} per ${windowMs / 1000} s on ${name}`,
  };
}

/** A venue's short limit per IP: `count` calls in any `windowMs`, or a counter of `max` decaying `perSecond`. */
export type IpBurst =
  | { readonly count: number; readonly windowMs: number }
  | { readonly max: number; readonly perSecond: number };

/** What a call of `cost` draws on the venue's short limit per IP. */
export function ipBurst(burst: IpBurst, cost: number): KeyLimit {
  if ('count' in burst) return perWindow('ip', burst.count, burst.windowMs, cost);
  return { name: 'ip', cost, ...burst, describes: `counter of ${burst.max} decaying ${burst.perSecond}/s per IP` };
}

/**
 * Nothing was sent: this key's own limit at the venue has no room (429 with Retry-After). A kind of the
 * user's own limit (decision 200), so every caller that defers or answers those treats it alike.
 */
export class KeyLimitRefusal extends UserShareRefusal {
  constructor(venue: string, detail: string, retryAfterSeconds: number) {
    super(venue, detail, retryAfterSeconds);
    this.name = 'KeyLimitRefusal';
  }
}

interface KeyCounterDeps {
  venue: string;
  label: () => string;
  prefix: string;
  share: number;
  maxWaitMs: number;
  store: <T>(operation: (c: Cache) => Promise<T>) => Promise<{ value: T; scope: 'shared' | 'local' }>;
  refused?: () => void;
  waited?: () => void;
}

/** Below this a wait is not worth a timer round. */
const MIN_WAIT_MS = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export function createKeyCounters(deps: KeyCounterDeps) {
  const queues = new Map<string, Promise<void>>();
  const counterKey = (key: string, limit: KeyLimit) => `${deps.prefix}:k:${key}:${limit.name}`;
  // Our share of the venue's counter: its ceiling and its drain alike (decision 430). Draining at the
  // venue's full rate under a cut ceiling would admit ceiling + rate × T in T seconds: 9 of OKX's 10 in
  // 2 s, 11 of them once calls arrive 0.8 s late, and the whole of Kraken's decay for ourselves alone.
  const ceiling = (limit: KeyLimit) => Math.max(limit.cost, limit.max * deps.share);
  const drain = (limit: KeyLimit) => limit.perSecond * deps.share;

  async function take(key: string, limit: KeyLimit): Promise<{ added: boolean; waitMs: number }> {
    const { value } = await deps.store((c) =>
      c.addDecaying(counterKey(key, limit), limit.cost, ceiling(limit), drain(limit)),
    );
    if (value.added) return { added: true, waitMs: 0 };
    const over = value.level + limit.cost - ceiling(limit);
    return { added: false, waitMs: Math.max(MIN_WAIT_MS, Math.ceil((over / drain(limit)) * 1000)) };
  }

  async function draw(key: string, limits: readonly KeyLimit[], deadline: number): Promise<void> {
    const taken: KeyLimit[] = [];
    for (const limit of limits) {
      for (;;) {
        const attempt = await take(key, limit);
        if (attempt.added) break;
        if (Date.now() + attempt.waitMs > deadline) {
          await give(key, taken).catch(() => undefined);
          deps.refused?.();
          const seconds = attempt.waitMs / 1000;
          throw new KeyLimitRefusal(
            deps.venue,
            `This key's ${limit.describes} at ${deps.label()} has no room for ${Math.ceil(seconds)} s; ` +
              "nothing was sent, other keys' calls go on",
            seconds,
          );
        }
        deps.waited?.();
        await sleep(attempt.waitMs);
      }
      taken.push(limit);
    }
  }

  async function give(key: string, limits: readonly KeyLimit[]): Promise<void> {
    for (const limit of limits)
      await deps.store((c) => c.addDecaying(counterKey(key, limit), -limit.cost, ceiling(limit), drain(limit)));
  }

  return {
    /**
     * Draws a call on each of its counters, waiting for room within the longest wait (`maxWaitMs`, when the
     * call allows less); a counter without room in time gives back what the others took and refuses the call.
     */
    async acquire(key: string, limits: readonly KeyLimit[], maxWaitMs = deps.maxWaitMs): Promise<void> {
      const longest = Math.min(maxWaitMs, deps.maxWaitMs);
      const deadline = Date.now() + longest;
      // In the order the calls came (so, within an instance, their nonces'): Kraken refuses a nonce
      // lower than one it has seen, and a call that waited must not be overtaken by a later one.
      const before = queues.get(key) ?? Promise.resolve();
      let done!: () => void;
      const mine = new Promise<void>((resolve) => {
        done = resolve;
      });
      const tail = before.then(() => mine);
      queues.set(key, tail);
      try {
        await Promise.race([before, sleep(longest)]);
        await draw(key, limits, deadline);
      } finally {
        done();
        if (queues.get(key) === tail) queues.delete(key);
      }
    },
    /** A call that never reached the venue gives its draws back. */
    release: give,
    /** The venue said the key is over its limit: its counters are full, as the venue's are. */
    async fill(key: string, limits: readonly KeyLimit[]): Promise<void> {
      for (const limit of limits)
        await deps.store((c) =>
          c.addDecaying(counterKey(key, limit), ceiling(limit), ceiling(limit), drain(limit), true),
        );
    },
  };
}
