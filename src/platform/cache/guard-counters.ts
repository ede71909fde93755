// The guard counters (decision 455): the fixed-window counters that stop guessing and abuse per account
// (the sign-in throttle, the second-factor attempts, the password checks of signed-in users). With Redis
// they live in Redis; while Redis is away they live in the database, the one store every instance
// shares, never in process memory, where an attacker spreading guesses over N instances would get N
// times every limit and an outage would reset them. Without REDIS_URL the process memory is the one
// instance's store and they stay there.
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database.ts';
import type { Cache } from './cache.ts';
import type { RedisOnlyCounters } from './redis-cache.ts';

/** What the guard counters do: a cache's fixed-window counters. */
export type GuardCounters = Pick<Cache, 'incr' | 'decr' | 'del'>;

interface Counted {
  count: number;
  /** ms until the window ends, by the database's clock. */
  reset_ms: number;
}

/**
 * How many ended rows of other keys an increment deletes in passing (decision 490): more than the one
 * row it may add, so that however long an outage lasts the table holds its live windows and little
 * else. Only increments add rows and they run only while Redis is away, so the healthy path pays nothing.
 */
const PRUNED_PER_INCREMENT = 4;

/**
 * A row whose window ended counts as zero: it starts again at one, with a new window. The oldest ended
 * rows of other keys go in the same statement, after the upsert (the prune reads its answer, so it
 * cannot run first, whatever order PostgreSQL gives the statement's parts): the upsert holds only its
 * own key when the prune locks others, and the prune skips rows others hold instead of waiting, so two
 * instances' increments never wait on each other in a cycle. The key's own row is the upsert's alone
 * (one statement changing a row twice has no defined result).
 */
const increment = (key: string, windowMs: number, extend: boolean) => sql`
  WITH counted AS (
    INSERT INTO guard_counters AS c (key, count, window_end)
    VALUES (${key}, 1, now() + ${windowMs}::float8 * interval '1 millisecond')
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN c.window_end <= now() THEN 1 ELSE c.count + 1 END,
      window_end = CASE WHEN c.window_end <= now() OR ${extend}::boolean THEN excluded.window_end ELSE c.window_end END
    RETURNING c.count, ceil(extract(epoch FROM c.window_end - now()) * 1000)::float8 AS reset_ms
  ), pruned AS (
    DELETE FROM guard_counters WHERE key IN (
      SELECT key FROM guard_counters
      WHERE window_end <= now() AND key <> ${key} AND EXISTS (SELECT FROM counted)
      ORDER BY window_end LIMIT ${PRUNED_PER_INCREMENT} FOR UPDATE SKIP LOCKED)
  )
  SELECT count, reset_ms FROM counted`;
const takeOne = (key: string) => sql`
  UPDATE guard_counters SET count = count - 1 WHERE key = ${key} AND count > 0 AND window_end > now()`;
const remove = (key: string) => sql`DELETE FROM guard_counters WHERE key = ${key}`;
const read = (key: string) => sql`
  SELECT count, ceil(extract(epoch FROM window_end - now()) * 1000)::float8 AS reset_ms
  FROM guard_counters WHERE key = ${key} AND window_end > now()`;
/**
 * The ended windows pruned, and how long the last live one has to run (null or negative when none is
 * live): the main query reads the table as it was before the delete, so the ended rows it still sees
 * only lower nothing (the maximum is a live row's whenever there is one).
 */
const pruneAndHorizon = sql`
  WITH pruned AS (DELETE FROM guard_counters WHERE window_end <= now())
  SELECT ceil(extract(epoch FROM max(window_end) - now()) * 1000)::float8 AS live_ms FROM guard_counters`;

/** The Redis side of a cache that has one (redis-cache.ts), without its memory fallback. */
const redisOf = (cache: Cache): RedisOnlyCounters | undefined =>
  (cache as Partial<{ redisOnly: RedisOnlyCounters }>).redisOnly;

export function createGuardCounters(cache: Cache, database: Database): GuardCounters {
  const redis = redisOf(cache);
  // No Redis configured: this instance is the only one, its memory the one store (decision 003).
  if (!redis) return { incr: cache.incr, decr: cache.decr, del: cache.del };

  /**
   * Until when (this process's clock) the database may hold live counters, 0 for no time: while it
   * does, a counter's count is Redis's and the database's together, so that what an outage counted
   * still holds when Redis is back. Learnt by `sync`, which is owed at the start, after any operation
   * that went to the database, and once the last live row known has ended (another instance may have
   * written later ones).
   */
  let horizon = 0;
  let syncOwed = true;
  /** Operations that went to the database: one made while a sync ran still owes the next. */
  let written = 0;
  let syncing: Promise<void> | undefined;

  function sync(): Promise<void> {
    syncing ??= (async () => {
      const writtenBefore = written;
      try {
        const [row] = await database.rows<{ live_ms: number | null }>(pruneAndHorizon);
        const liveMs = row?.live_ms ?? 0;
        horizon = liveMs > 0 ? Date.now() + liveMs : 0;
        syncOwed = written !== writtenBefore;
      } finally {
        syncing = undefined;
      }
    })();
    return syncing;
  }

  /** Whether the database may hold live counters now (one statement when a sync is owed, none otherwise). */
  async function databaseMayCount(): Promise<boolean> {
    if (syncOwed || (horizon !== 0 && Date.now() >= horizon)) await sync();
    return horizon !== 0 && Date.now() < horizon;
  }

  /** Redis's answer, or undefined while Redis is away (the operation then goes to the database). */
  async function onRedis<T>(operation: () => Promise<T>): Promise<{ value: T } | undefined> {
    if (!redis!.available()) return undefined;
    try {
      return { value: await operation() };
    } catch {
      return undefined;
    }
  }

  /** An operation counted in the database: the next one on Redis owes a sync. */
  async function inDatabase<T>(statement: ReturnType<typeof sql>): Promise<T[]> {
    syncOwed = true;
    written += 1;
    return database.rows<T>(statement);
  }

  /** The row's live count, when the database may hold one; undefined otherwise. */
  async function liveInDatabase(key: string): Promise<Counted | undefined> {
    if (!(await databaseMayCount())) return undefined;
    const [row] = await database.rows<Counted>(read(key));
    return row;
  }

  return {
    async incr(key, windowMs, limit, extend) {
      const onRedisCount = await onRedis(() => redis.incr(key, windowMs, limit, extend));
      if (!onRedisCount) {
        const [row] = await inDatabase<Counted>(increment(key, Math.max(1, Math.round(windowMs)), extend === true));
        return { count: row!.count, resetMs: row!.reset_ms };
      }
      const counted = onRedisCount.value;
      // Unanswered (the database is down too): the attempt was not checked, so Redis gets it back.
      const row = await liveInDatabase(key).catch(async (error: unknown) => {
        await redis.decr(key).catch(() => {});
        throw error;
      });
      if (!row) return counted;
      return { count: counted.count + row.count, resetMs: Math.max(counted.resetMs, row.reset_ms) };
    },
    // Given back where attempts are counted now: Redis once it is back (an attempt counted in the
    // database during the outage then stays counted there, never less than it was).
    async decr(key) {
      if (await onRedis(() => redis.decr(key))) return;
      await inDatabase(takeOne(key));
    },
    // Forgiven in both: what an outage counted is forgiven with the rest.
    async del(key) {
      if (!(await onRedis(() => redis.del(key)))) {
        await inDatabase(remove(key));
        return;
      }
      if (await databaseMayCount()) await database.rows(remove(key));
    },
  };
}
