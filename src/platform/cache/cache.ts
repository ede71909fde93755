// A small cache with one interface over process memory and Redis. `wrap` is single-flight: any
// number of concurrent misses for one key make one call to the loader (per process, and across
// processes through a short Redis lock). The Redis implementation is in redis-cache.ts.
import { randomUUID } from 'node:crypto';

export interface Cache {
  readonly kind: 'memory' | 'redis';
  get<T>(key: string): Promise<T | undefined>;
  /** Stores a JSON-serialisable value; `undefined` cannot be cached (it reads as a miss). */
  set<T>(key: string, value: T, ttlMs: number): Promise<void>;
  del(key: string): Promise<void>;
  /** The cached value, or the loader's, stored for ttlMs. Concurrent misses share one load. */
  wrap<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T>;
  /**
   * Fixed-window counter: the count after this increment and the window's remaining time. `limit`,
   * the count its caller refuses above, lets a full in-process table tell the counters near it
   * (kept) from the others (evictable); a counter without one is near from its second count. Where
   * the table is full of counters near their limits, a new counter answers an infinite count.
   * With `extend`, every increment starts the window again: the counter ends only after `windowMs`
   * without increments (so what it counts is bounded over any window of that length, not only a fixed one).
   */
  incr(key: string, windowMs: number, limit?: number, extend?: boolean): Promise<{ count: number; resetMs: number }>;
  /** Takes one back from a live counter (e.g. an attempt that turned out fine); no-op when absent. */
  decr(key: string): Promise<void>;
  /**
   * Adds `amount` to a numeric counter only if the result stays within `cap` (atomic); a new counter
   * lives ttlMs. Answers whether it was added and the count after the attempt.
   */
  addWithin(key: string, amount: number, cap: number, ttlMs: number): Promise<{ added: boolean; count: number }>;
  /**
   * One atomic step over a pause and several counters (decision 395): when `pause.key` holds a value whose
   * `until` (ms) is after `pause.now`, answers that value and counts nothing; otherwise adds each counter's
   * `amount` only if every one stays within its `cap` (new counters live ttlMs), else adds none. Answers
   * each count after the step, or the first counter, in the given order, that would have gone over and its count.
   */
  addAllWithin<P extends { until: number }>(
    pause: { key: string; now: number },
    counters: readonly { key: string; amount: number; cap: number }[],
    ttlMs: number,
  ): Promise<AddAllWithin<P>>;
  /** Raises a numeric counter to at least `value` (atomic; never lowers it); answers the count. */
  raiseTo(key: string, value: number, ttlMs: number): Promise<number>;
  /** Takes `amount` off a live numeric counter, never below zero; no-op when absent. */
  subtract(key: string, amount: number): Promise<void>;
  /**
   * A counter that decays by `perSecond` continuously (a leaky bucket, atomic): adds `amount` only if
   * the level stays within `cap` (a negative amount gives back, always); with `raise`, sets the level to
   * at least `amount` whatever the cap. Answers whether it moved and the level after.
   */
  addDecaying(
    key: string,
    amount: number,
    cap: number,
    perSecond: number,
    raise?: boolean,
  ): Promise<{ added: boolean; level: number }>;
  /** Takes a lock for ttlMs; answers a token to release it with, or undefined if someone holds it. */
  acquire(key: string, ttlMs: number): Promise<string | undefined>;
  /**
   * `acquire` and, in the same step and only when the lock is taken, the next number of a sequence:
   * max(`floor`, last + 1), kept for the sequence's ttlMs. Answers the token and the number, or undefined
   * if someone holds the lock (the sequence then untouched).
   */
  acquireNumbered(
    key: string,
    ttlMs: number,
    sequence: { key: string; floor: number; ttlMs: number },
  ): Promise<{ token: string; number: number } | undefined>;
  /** Releases a lock taken with `acquire`, only if the token still holds it. */
  release(key: string, token: string): Promise<void>;
  ping(): Promise<number>;
  close(): Promise<void>;
}

/** What `addAllWithin` answers. */
export type AddAllWithin<P> =
  | { outcome: 'paused'; paused: P }
  | { outcome: 'added'; counts: number[] }
  | { outcome: 'refused'; over: number; count: number };

type Store = Omit<Cache, 'wrap'>;

const LOCK_TTL_MS = 10_000;
const WAIT_FOR_PEER_MS = 3_000;
const POLL_MS = 25;

export function withSingleFlight(store: Store): Cache {
  const pending = new Map<string, Promise<unknown>>();

  async function loadShared<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
    if (store.kind === 'memory') {
      const value = await load();
      await store.set(key, value, ttlMs);
      return value;
    }
    const lockKey = `lock:${key}`;
    let token = await store.acquire(lockKey, LOCK_TTL_MS);
    if (!token) {
      // Another instance is loading; wait for its value rather than calling upstream too.
      for (let waited = 0; waited < WAIT_FOR_PEER_MS && !token; waited += POLL_MS) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        const value = await store.get<T>(key);
        if (value !== undefined) return value;
        // The holder may have failed and released the lock: take over.
        token = await store.acquire(lockKey, LOCK_TTL_MS);
      }
    }
    try {
      // Between our miss and our lock the holder may have finished: check once more.
      const cached = await store.get<T>(key);
      if (cached !== undefined) return cached;
      const value = await load();
      await store.set(key, value, ttlMs);
      return value;
    } finally {
      if (token) await store.release(lockKey, token);
    }
  }

  return {
    ...store,
    async wrap<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> {
      const inFlight = pending.get(key);
      if (inFlight) return inFlight as Promise<T>;
      const promise = (async () => {
        const cached = await store.get<T>(key);
        if (cached !== undefined) return cached;
        return loadShared(key, ttlMs, load);
      })();
      pending.set(key, promise);
      try {
        return await promise;
      } finally {
        pending.delete(key);
      }
    },
  };
}

/**
 * Counters for login and sign-up throttles and venue weight. A flood of new keys must neither push a
 * victim's counter out (and so reset it; decision 003) nor fill the table so that every new counter
 * is refused, which turned 200,000 throttle keys into a refusal of everyone (issue 37). So a full
 * table first sweeps the expired counters, then evicts the ones far from their limit: below half of
 * it, or at one count where the limit is not known (one attempt is what a flood of fresh keys is
 * made of). A counter at half its limit or more stays; only a table full of those refuses a new key,
 * answering as if that counter were over any limit.
 */
const COUNTER_CAPACITY = 200_000;

interface Counter {
  value: number;
  expiresAt: number;
  /** The count its caller refuses above, when it said. */
  limit?: number;
}

const farFromLimit = (counter: Counter) =>
  counter.limit === undefined ? counter.value <= 1 : counter.value * 2 < counter.limit;

function createCounterTable(capacity: number, now: () => number) {
  const counters = new Map<string, Counter>();
  const live = (key: string, at = now()) => {
    const entry = counters.get(key);
    if (entry && entry.expiresAt <= at) {
      counters.delete(key);
      return undefined;
    }
    return entry;
  };
  // One pass over a full table frees every counter it may: the next pass is a table's worth of new keys away.
  const room = () => {
    if (counters.size < capacity) return true;
    const at = now();
    for (const [key, entry] of counters) if (entry.expiresAt <= at || farFromLimit(entry)) counters.delete(key);
    return counters.size < capacity;
  };
  return {
    live,
    /** A new counter, unless the table is full of counters near their limits. */
    open(key: string, value: number, ttlMs: number, limit?: number) {
      if (!room()) return undefined;
      const entry: Counter = { value, expiresAt: now() + ttlMs, limit };
      counters.set(key, entry);
      return entry;
    },
    delete: (key: string) => counters.delete(key),
    clear: () => counters.clear(),
  };
}

/** How long a decaying counter lives: until it is back at zero, and a second more. */
export function decayedAfterMs(level: number, perSecond: number): number {
  return Math.ceil((level / perSecond) * 1000) + 1000;
}

/**
 * `now` is the time its entries and counters expire by, Date.now() unless a test gives the clock it
 * moves (read at each call, so a test that moves the process's Date moves this cache's time too).
 */
export function createMemoryCache(
  maxEntries = 10_000,
  counterCapacity = COUNTER_CAPACITY,
  now: () => number = () => Date.now(),
): Cache {
  const entries = new Map<string, { value: unknown; expiresAt: number }>();
  const counters = createCounterTable(counterCapacity, now);
  const live = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  const put = (key: string, value: unknown, ttlMs: number) => {
    entries.delete(key);
    entries.set(key, { value, expiresAt: now() + ttlMs });
    // Maps iterate in insertion order: the first key is the least recently written.
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
  };
  return withSingleFlight({
    kind: 'memory',
    async get<T>(key: string) {
      return (live(key)?.value ?? counters.live(key)?.value) as T | undefined;
    },
    async set(key, value, ttlMs) {
      if (value === undefined) return;
      put(key, value, ttlMs);
    },
    async del(key) {
      entries.delete(key);
      counters.delete(key);
    },
    async acquire(key, ttlMs) {
      if (live(key)) return undefined;
      const token = randomUUID();
      put(key, token, ttlMs);
      return token;
    },
    async acquireNumbered(key, ttlMs, sequence) {
      if (live(key)) return undefined;
      const token = randomUUID();
      put(key, token, ttlMs);
      const last = live(sequence.key)?.value;
      const number = Math.max(sequence.floor, (typeof last === 'number' ? last : 0) + 1);
      put(sequence.key, number, sequence.ttlMs);
      return { token, number };
    },
    async release(key, token) {
      if (live(key)?.value === token) entries.delete(key);
    },
    async incr(key, windowMs, limit, extend) {
      const entry = counters.live(key);
      if (entry) {
        entry.value += 1;
        if (limit !== undefined) entry.limit = limit;
        if (extend) entry.expiresAt = now() + windowMs;
        return { count: entry.value, resetMs: entry.expiresAt - now() };
      }
      return counters.open(key, 1, windowMs, limit)
        ? { count: 1, resetMs: windowMs }
        : { count: Number.POSITIVE_INFINITY, resetMs: windowMs };
    },
    async decr(key) {
      const entry = counters.live(key);
      if (entry && entry.value > 0) entry.value -= 1;
    },
    async addWithin(key, amount, cap, ttlMs) {
      const entry = counters.live(key);
      const current = entry?.value ?? 0;
      if (current + amount > cap) return { added: false, count: current };
      if (entry) entry.value = current + amount;
      else if (!counters.open(key, current + amount, ttlMs, cap)) return { added: false, count: cap };
      return { added: true, count: current + amount };
    },
    async addAllWithin<P extends { until: number }>(
      pause: { key: string; now: number },
      list: readonly { key: string; amount: number; cap: number }[],
      ttlMs: number,
    ): Promise<AddAllWithin<P>> {
      const paused = live(pause.key)?.value as P | undefined;
      if (paused && typeof paused.until === 'number' && paused.until > pause.now) return { outcome: 'paused', paused };
      const entries = list.map((counter) => counters.live(counter.key));
      const over = list.findIndex((counter, i) => (entries[i]?.value ?? 0) + counter.amount > counter.cap);
      if (over >= 0) return { outcome: 'refused', over, count: entries[over]?.value ?? 0 };
      // New counters first, so that a table too full for one leaves every count as it was.
      const opened: string[] = [];
      for (const [i, counter] of list.entries()) {
        if (entries[i]) continue;
        if (!counters.open(counter.key, counter.amount, ttlMs, counter.cap)) {
          for (const key of opened) counters.delete(key);
          return { outcome: 'refused', over: i, count: counter.cap };
        }
        opened.push(counter.key);
      }
      return {
        outcome: 'added',
        counts: list.map((counter, i) => {
          const entry = entries[i];
          return entry ? (entry.value += counter.amount) : counter.amount;
        }),
      };
    },
    async raiseTo(key, value, ttlMs) {
      const entry = counters.live(key);
      if (entry) return (entry.value = Math.max(entry.value, value));
      counters.open(key, value, ttlMs);
      return value;
    },
    async subtract(key, amount) {
      const entry = counters.live(key);
      if (entry) entry.value = Math.max(0, entry.value - amount);
    },
    async addDecaying(key, amount, cap, perSecond, raise) {
      const at = now();
      const state = live(key)?.value as { level: number; at: number } | undefined;
      const level = state ? Math.max(0, state.level - ((at - state.at) / 1000) * perSecond) : 0;
      const next = raise ? Math.max(level, amount) : Math.max(0, level + amount);
      if (!raise && amount > 0 && next > cap) return { added: false, level };
      put(key, { level: next, at }, decayedAfterMs(next, perSecond));
      return { added: true, level: next };
    },
    async ping() {
      return 0;
    },
    async close() {
      entries.clear();
      counters.clear();
    },
  });
}
