// The market module's cache over platform.cache (process memory, or Redis shared by every instance):
// - an entry is fresh for its policy's TTL and kept, for stale serving only, up to its stale bound;
// - concurrent misses of one key make one upstream call (per process by a shared promise, across
//   instances by a short cache lock while the others wait for the winner's value);
// - when the upstream fails, an entry younger than the stale bound is served with `stale: true`;
//   otherwise the upstream's error (502/503/504) goes to the caller;
// - a load refused by its caller's own share of the venue's minute (429) is that caller's answer
//   alone: the callers who joined it load on their own (decision 1200);
// - the newest entry of each key is also held in process memory, so a fresh hit costs no round trip
//   to Redis, and values derived from it (sorted, filtered, indexed) are computed once per entry.
import { randomUUID } from 'node:crypto';
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import { AppError } from '../../platform/http/errors.ts';
import { UserShareRefusal } from '../../platform/venue-budget/venue-budget.ts';

export interface CachePolicy {
  ttlMs: number;
  /** How old an entry may be and still be served, flagged stale, when the upstream fails. */
  staleMs: number;
  /**
   * How long the shared cache (Redis) keeps the entry, if shorter than `staleMs`: entries under keys
   * callers choose (decision 748). This process's newest entry of a key is still served stale up to `staleMs`.
   */
  keepMs?: number;
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
  /** What the entry holds, as `itemsOf` counts it. */
  items: number;
}

const UPSTREAM_FAILURES = new Set(['upstream_error', 'unavailable', 'upstream_timeout']);
const LOCAL_ENTRIES = 500;
/** Long enough for every waiter polling every 25 ms to see it; short enough to never answer a later request. */
const FAILURE_MARKER_TTL_MS = 2_000;
const DERIVED_ENTRIES = 1_000;
/**
 * How many items (candles, book levels, tickers, symbols) each of this process's stores (the newest
 * entries, the entries it wrote to a process-memory cache, the inputs of derived values) holds at most,
 * whatever keys callers make up: a candle is about half a kilobyte of heap, so about 75 MB per store
 * (decision 744). The oldest go first.
 */
export const HELD_ITEMS = 150_000;

/** An entry's size in items: an array's length, or the lengths of an object's array fields; at least 1. */
export function itemsOf(value: unknown): number {
  if (Array.isArray(value)) return Math.max(1, value.length);
  let items = 0;
  if (value && typeof value === 'object')
    for (const field of Object.values(value)) if (Array.isArray(field)) items += field.length;
  return Math.max(1, items);
}

function isUpstreamFailure(error: unknown): error is AppError {
  return error instanceof AppError && UPSTREAM_FAILURES.has(error.code);
}

export interface CacheAge {
  key: string;
  ageMs: number;
  ttlMs: number;
  fresh: boolean;
}

export function createMarketCache(deps: {
  cache: Cache;
  clock: Clock;
  /** How long the cross-instance lock lasts at most: the longest one load may take. */
  lockTtlMs: number;
  /** How long an instance waits for another's load before it answers without it. */
  waitMs: number;
}) {
  const { cache, clock } = deps;
  const local = new Map<string, Known>();
  const inflight = new Map<string, Promise<Served<unknown>>>();
  let localItems = 0;
  const derived = new Map<string, { inputs: readonly unknown[]; value: unknown; items: number }>();
  let derivedItems = 0;
  /** The entries this process wrote to a process-memory cache, oldest first, with their items. */
  const written = new Map<string, number>();
  let writtenItems = 0;
  const now = () => clock.now().getTime();

  function remember(key: string, entry: Entry<unknown>, ttlMs: number): void {
    const before = local.get(key);
    if (before) {
      localItems -= before.items;
      local.delete(key);
    }
    const items = itemsOf(entry.value);
    local.set(key, { ...entry, ttlMs, items });
    localItems += items;
    while (local.size > LOCAL_ENTRIES || (localItems > HELD_ITEMS && local.size > 1)) {
      const [oldestKey, oldest] = local.entries().next().value!;
      local.delete(oldestKey);
      localItems -= oldest.items;
    }
  }

  /**
   * A process-memory cache bounds its entries by count alone, and holds them for their stale bound: the
   * entries written to it are bounded here by their items too (Redis bounds its own memory).
   */
  function noteWritten(key: string, value: unknown): void {
    if (cache.kind !== 'memory') return;
    writtenItems -= written.get(key) ?? 0;
    written.delete(key);
    const items = itemsOf(value);
    written.set(key, items);
    writtenItems += items;
    while (writtenItems > HELD_ITEMS && written.size > 1) {
      const [oldestKey, oldestItems] = written.entries().next().value!;
      written.delete(oldestKey);
      writtenItems -= oldestItems;
      void cache.del(`market:${oldestKey}`).catch(() => undefined);
    }
  }

  async function readShared<T>(key: string): Promise<Entry<T> | undefined> {
    return cache.get<Entry<T>>(`market:${key}`).catch(() => undefined);
  }

  interface FailureMarker {
    id: string;
    code: AppError['code'];
    detail: string;
    headers: Record<string, string>;
  }

  const readMarker = (key: string) => cache.get<FailureMarker>(`market:failed:${key}`).catch(() => undefined);

  /**
   * Loads under the cross-instance lock; a waiting instance takes the winner's value instead, or the
   * winner's failure, which the winner publishes before it lets go of the lock (decision 103). A
   * waiter whose holder let go with neither (it failed some other way) takes the lock and loads. A
   * waiter gives up after one upstream timeout and a half second: stale if it can, else 504.
   */
  async function loadExclusive<T>(
    key: string,
    policy: CachePolicy,
    seen: number,
    load: () => Promise<T>,
  ): Promise<Entry<T>> {
    const lockKey = `market:lock:${key}`;
    // undefined: another instance holds the lock; null: the cache cannot lock, so load unlocked.
    let token = await cache.acquire(lockKey, deps.lockTtlMs).catch(() => null);
    if (token === undefined) {
      const before = (await readMarker(key))?.id;
      const deadline = performance.now() + deps.waitMs;
      while (token === undefined) {
        if (performance.now() >= deadline) {
          throw new AppError(
            'upstream_timeout',
            'Market data is still being loaded by another instance; try again shortly',
            { headers: { 'retry-after': '1' } },
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
        const entry = await readShared<T>(key);
        if (entry && entry.fetchedAt > seen) return entry;
        const marker = await readMarker(key);
        if (marker && marker.id !== before) throw new AppError(marker.code, marker.detail, { headers: marker.headers });
        // The holder let go without a value or a failure to share: load ourselves.
        token = await cache.acquire(lockKey, deps.lockTtlMs).catch(() => null);
        if (token !== undefined) {
          const late = await readShared<T>(key);
          if (late && late.fetchedAt > seen) {
            if (token) await cache.release(lockKey, token).catch(() => undefined);
            return late;
          }
        }
      }
    }
    try {
      const entry: Entry<T> = { value: await load(), fetchedAt: now() };
      await cache
        .set(`market:${key}`, entry, Math.min(policy.staleMs, policy.keepMs ?? Infinity))
        .catch(() => undefined);
      noteWritten(key, entry.value);
      return entry;
    } catch (error) {
      // Waiting instances answer with this failure at once instead of calling the upstream too.
      if (token && isUpstreamFailure(error)) {
        const marker: FailureMarker = {
          id: randomUUID(),
          code: error.code,
          detail: typeof error.detail === 'string' ? error.detail : 'Market data source failed',
          headers: error.headers,
        };
        await cache.set(`market:failed:${key}`, marker, FAILURE_MARKER_TTL_MS).catch(() => undefined);
      }
      throw error;
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
    return held && now() - held.fetchedAt < policy.ttlMs
      ? { value: held.value as T, fetchedAt: held.fetchedAt, stale: false }
      : undefined;
  }

  /** The value of `key`: fresh from cache, loaded once for all concurrent callers, or stale on failure. */
  function get<T>(key: string, policy: CachePolicy, load: () => Promise<T>): Promise<Served<T>> {
    const fresh = peek<T>(key, policy);
    if (fresh) return Promise.resolve(fresh);
    const joined = inflight.get(key) as Promise<Served<T>> | undefined;
    if (joined) {
      // The caller whose load this is may have spent its own share of the venue's minute: that refusal
      // is not ours, so we ask again, joining a later load or making our own (decision 1200).
      return joined.catch((error: unknown) => {
        if (error instanceof UserShareRefusal) return get(key, policy, load);
        throw error;
      });
    }
    const flight = refresh(key, policy, load).finally(() => inflight.delete(key));
    inflight.set(key, flight);
    return flight;
  }

  return {
    peek,
    get,

    /** `compute(...inputs)`, recomputed only when one of the inputs is a different object. */
    derive<R>(key: string, inputs: readonly unknown[], compute: () => R): R {
      const memo = derived.get(key);
      if (memo && memo.inputs.length === inputs.length && memo.inputs.every((input, i) => input === inputs[i])) {
        return memo.value as R;
      }
      const value = compute();
      // The inputs are held as long as the derived value: counted, so that they too stay bounded.
      const items = inputs.reduce<number>((sum, input) => sum + itemsOf(input), 0);
      if (memo) {
        derived.delete(key);
        derivedItems -= memo.items;
      }
      if (derived.size >= DERIVED_ENTRIES || derivedItems + items > HELD_ITEMS) {
        derived.clear();
        derivedItems = 0;
      }
      derived.set(key, { inputs, value, items });
      derivedItems += items;
      return value;
    },

    /** Ages of the entries this process holds, newest first, for GET /market/status. */
    ages(limit = 100): CacheAge[] {
      const at = now();
      return [...local.entries()]
        .map(([key, entry]) => ({
          key,
          ageMs: at - entry.fetchedAt,
          ttlMs: entry.ttlMs,
          fresh: at - entry.fetchedAt < entry.ttlMs,
        }))
        .sort((a, b) => a.ageMs - b.ageMs || a.key.localeCompare(b.key))
        .slice(0, limit);
    },
  };
}

export type MarketCache = ReturnType<typeof createMarketCache>;
