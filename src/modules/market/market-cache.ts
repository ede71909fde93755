// The market module's cache over platform.cache (process memory, or Redis shared by every instance):
// - an entry is fresh for its policy's TTL and kept, for stale serving only, up to its stale bound;
// - concurrent misses of one key make one upstream call (per process by a shared promise, across
//   instances by a short cache lock while the others wait for the winner's value);
// - when the upstream fails, an entry younger than the stale bound is served with `stale: true`;
//   otherwise the upstream's error (502/503/504) goes to the caller;
// - the newest entry of each key is also held in process memory, so a fresh hit costs no round trip
//   to Redis, and values derived from it (sorted, filtered, indexed) are computed once per entry.
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError } from '../../platform/http/errors.ts';

export interface CachePolicy {
  ttlMs: number;
  /** How old an entry may be and still be served, flagged stale, when the upstream fails. */
  staleMs: number;
}

export interface Served<T> {
  value: T;
  /** When the value was fetched from the upstream, ms. */
  fetchedAt: number;
  stale: boolean;
}

interface Entry<T> {
  value: T;
  fetchedAt: number;
}

interface Known extends Entry<unknown> {
  ttlMs: number;
}

const UPSTREAM_FAILURES = new Set(['upstream_error', 'unavailable', 'upstream_timeout']);
const LOCAL_ENTRIES = 500;
const DERIVED_ENTRIES = 1_000;

export function isUpstreamFailure(error: unknown): error is AppError {
  return error instanceof AppError && UPSTREAM_FAILURES.has(error.code);
}

export interface CacheAge {
  key: string;
  ageMs: number;
  ttlMs: number;
  fresh: boolean;
}

export function createMarketCache(deps: { cache: Cache; clock: Clock; lockWaitMs: number }) {
  const { cache, clock } = deps;
  const local = new Map<string, Known>();
  const inflight = new Map<string, Promise<Served<unknown>>>();
  const derived = new Map<string, { inputs: readonly unknown[]; value: unknown }>();
  const now = () => clock.now().getTime();

  function remember(key: string, entry: Entry<unknown>, ttlMs: number): void {
    local.delete(key);
    local.set(key, { ...entry, ttlMs });
    if (local.size > LOCAL_ENTRIES) local.delete(local.keys().next().value!);
  }

  async function readShared<T>(key: string): Promise<Entry<T> | undefined> {
    return cache.get<Entry<T>>(`market:${key}`).catch(() => undefined);
  }

  /** Loads under the cross-instance lock; a waiting instance takes the winner's value instead. */
  async function loadExclusive<T>(key: string, policy: CachePolicy, seen: number, load: () => Promise<T>): Promise<Entry<T>> {
    const lockKey = `market:lock:${key}`;
    // undefined: another instance holds the lock; null: the cache cannot lock, so load unlocked.
    const token = await cache.acquire(lockKey, deps.lockWaitMs).catch(() => null);
    if (token === undefined) {
      for (let waited = 0; waited < deps.lockWaitMs; waited += 25) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        const entry = await readShared<T>(key);
        if (entry && entry.fetchedAt > seen) return entry;
      }
    }
    try {
      const entry: Entry<T> = { value: await load(), fetchedAt: now() };
      await cache.set(`market:${key}`, entry, policy.staleMs).catch(() => undefined);
      return entry;
    } finally {
      // Only our own lock: once it has expired it may be another instance's.
      if (token) await cache.release(lockKey, token).catch(() => undefined);
    }
  }

  async function refresh<T>(key: string, policy: CachePolicy, load: () => Promise<T>): Promise<Served<T>> {
    const held = local.get(key) as Entry<T> | undefined;
    const shared = await readShared<T>(key);
    const newest = shared && (!held || shared.fetchedAt > held.fetchedAt) ? shared : held;
    if (newest && now() - newest.fetchedAt < policy.ttlMs) {
      remember(key, newest, policy.ttlMs);
      return { ...newest, stale: false };
    }
    try {
      const entry = await loadExclusive(key, policy, newest?.fetchedAt ?? -1, load);
      remember(key, entry, policy.ttlMs);
      return { ...entry, stale: false };
    } catch (error) {
      if (!isUpstreamFailure(error) || !newest || now() - newest.fetchedAt > policy.staleMs) throw error;
      remember(key, newest, policy.ttlMs);
      return { ...newest, stale: true };
    }
  }

  /** The entry this process holds for `key` if it is fresh; the hot path needs no promise. */
  function peek<T>(key: string, policy: CachePolicy): Served<T> | undefined {
    const held = local.get(key);
    return held && now() - held.fetchedAt < policy.ttlMs ? { value: held.value as T, fetchedAt: held.fetchedAt, stale: false } : undefined;
  }

  return {
    peek,

    /** The value of `key`: fresh from cache, loaded once for all concurrent callers, or stale on failure. */
    get<T>(key: string, policy: CachePolicy, load: () => Promise<T>): Promise<Served<T>> {
      const fresh = peek<T>(key, policy);
      if (fresh) return Promise.resolve(fresh);
      let flight = inflight.get(key) as Promise<Served<T>> | undefined;
      if (!flight) {
        flight = refresh(key, policy, load).finally(() => inflight.delete(key));
        inflight.set(key, flight);
      }
      return flight;
    },

    /** `compute(...inputs)`, recomputed only when one of the inputs is a different object. */
    derive<R>(key: string, inputs: readonly unknown[], compute: () => R): R {
      const memo = derived.get(key);
      if (memo && memo.inputs.length === inputs.length && memo.inputs.every((input, i) => input === inputs[i])) {
        return memo.value as R;
      }
      const value = compute();
      if (derived.size >= DERIVED_ENTRIES) derived.clear();
      derived.set(key, { inputs, value });
      return value;
    },

    /** Ages of the entries this process holds, newest first, for GET /market/status. */
    ages(limit = 100): CacheAge[] {
      const at = now();
      return [...local.entries()]
        .map(([key, entry]) => ({ key, ageMs: at - entry.fetchedAt, ttlMs: entry.ttlMs, fresh: at - entry.fetchedAt < entry.ttlMs }))
        .sort((a, b) => a.ageMs - b.ageMs || a.key.localeCompare(b.key))
        .slice(0, limit);
    },
  };
}

export type MarketCache = ReturnType<typeof createMarketCache>;
