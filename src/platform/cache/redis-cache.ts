// The Redis side of the cache: shared by every instance, within a command timeout, and answering from
// process memory while Redis is down or frozen (docs/decisions/102).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { settledWithin } from '../timeouts.ts';
import { createMemoryCache, withSingleFlight, type AddAllWithin, type Cache } from './cache.ts';
import { defineScripts } from './redis-scripts.ts';

/**
 * The counters of a Redis cache without its memory fallback: Redis's answer, or a failure while Redis is
 * away (the guard counters then count in the database, decision 455).
 */
export type RedisOnlyCounters = Pick<Cache, 'incr' | 'decr' | 'del'> & { available(): boolean };

interface RedisCacheOptions {
  keyPrefix?: string;
  /** Bound of one command; past it the cache answers from process memory (decision 102). */
  commandTimeoutMs?: number;
  /** Where the cache says it lost or found Redis again: one line each way. */
  logger?: Pick<Logger, 'warn' | 'info'>;
  /** How often an unavailable Redis is tried again. */
  probeMs?: number;
}

const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 500;
/** How long the start waits for Redis's first connection before going on without it. */
const FIRST_CONNECTION_MS = 3_000;

/** The URL as a log line may show it: no password, no user name. */
function maskRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '****';
    if (parsed.username) parsed.username = parsed.username ? '****' : '';
    return parsed.toString();
  } catch {
    return 'redis://(unparseable URL)';
  }
}

/**
 * Redis with process memory behind it. While Redis answers, every operation goes to Redis (shared
 * by every instance). A command that fails or outlives the command timeout marks Redis down; from
 * then on operations go straight to process memory, without waiting on Redis at all, until a
 * background PING answers again. `ping()` always asks Redis itself, so /readyz tells the truth.
 */
export function createRedisCache(
  url: string,
  options: RedisCacheOptions | string = {},
): Cache & { available(): boolean; connected(waitMs?: number): Promise<boolean>; redisOnly: RedisOnlyCounters } {
  const settings = typeof options === 'string' ? { keyPrefix: options } : options;
  const commandTimeoutMs = settings.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
  const probeMs = settings.probeMs ?? 500;
  const redis = new Redis(url, {
    keyPrefix: settings.keyPrefix ?? 'tp:',
    // Nothing waits for a connection: while Redis is away, commands fail at once (and go to memory).
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: Math.max(1_000, commandTimeoutMs * 2),
    // Reconnect quickly and keep trying: recovery within a second or two of Redis returning.
    retryStrategy: (times) => Math.min(100 * times, 1_000),
    lazyConnect: false,
  });
  // Every script is sent as EVALSHA, and by ioredis as EVAL where this connection has not loaded it
  // (first use, or a NOSCRIPT after Redis lost its scripts): one command a call either way, without the
  // script's text on every call (decisions 395, 406). `addAllWithin`'s number of keys varies.
  const scripts = defineScripts(redis);
  const where = maskRedisUrl(url);
  const memory = createMemoryCache();
  let up = false;
  let everUp = false;
  /** Whether this outage (or the unreachable start) has been logged: one line per outage. */
  let outageLogged = false;
  let probing: NodeJS.Timeout | undefined;
  let closed = false;

  const markDown = (reason: string) => {
    if (closed) return;
    up = false;
    if (!outageLogged) {
      outageLogged = true;
      settings.logger?.warn(
        { redis: where, reason },
        everUp
          ? 'redis unavailable: answering from process memory until it returns'
          : 'redis unreachable at start: answering from process memory until it answers (REDIS_URL)',
      );
    }
    // A frozen Redis keeps its connection "ready": a PING tells when it answers again.
    probing ??= setInterval(() => {
      if (redis.status === 'ready') redis.ping().then(markUp, () => {});
    }, probeMs).unref();
  };
  const markUp = () => {
    if (closed) return;
    if (probing) clearInterval(probing);
    probing = undefined;
    if (outageLogged) settings.logger?.info({ redis: where }, 'redis available again');
    outageLogged = false;
    up = true;
    everUp = true;
  };
  redis.on('ready', markUp);
  // The very first commands may wait for the first connection, at most one command timeout.
  let firstReady: Promise<unknown> | undefined = new Promise((resolve) => redis.once('ready', resolve));
  // ioredis reconnects by itself; each failure only keeps the cache on memory.
  redis.on('error', (error: Error) => markDown(error.message));
  redis.on('close', () => markDown('connection closed'));

  /** Redis when it is up, within the command timeout; process memory when it is not. */
  async function firstConnection(): Promise<void> {
    if (!firstReady) return;
    if (everUp || outageLogged) {
      firstReady = undefined;
      return;
    }
    await settledWithin(firstReady, commandTimeoutMs);
  }

  async function either<T>(viaRedis: () => Promise<T>, viaMemory: () => Promise<T>): Promise<T> {
    await firstConnection();
    if (!up || redis.status !== 'ready') return viaMemory();
    try {
      return await viaRedis();
    } catch (error) {
      markDown(error instanceof Error ? error.message : String(error));
      return viaMemory();
    }
  }

  /** Redis only, once its first connection is made (bounded): a failure is the caller's to handle. */
  async function onRedis<T>(command: () => Promise<T>): Promise<T> {
    await firstConnection();
    if (!up || redis.status !== 'ready') throw new Error(`redis is ${up ? redis.status : 'down'}`);
    try {
      return await command();
    } catch (error) {
      markDown(error instanceof Error ? error.message : String(error));
      throw error;
    }
  }

  async function redisIncr(key: string, windowMs: number, extend?: boolean) {
    const window = String(Math.max(1, Math.round(windowMs)));
    const [count, ttl] = (await scripts.incr(key, window, extend ? '1' : '0')) as [number, number];
    return { count, resetMs: ttl > 0 ? ttl : windowMs };
  }

  const store = withSingleFlight({
    kind: 'redis',
    get<T>(key: string) {
      return either(
        async () => {
          const raw = await redis.get(key);
          return raw === null ? undefined : (JSON.parse(raw) as T);
        },
        () => memory.get<T>(key),
      );
    },
    set(key, value, ttlMs) {
      if (value === undefined) return Promise.resolve();
      return either(
        async () => {
          await redis.set(key, JSON.stringify(value), 'PX', Math.max(1, Math.round(ttlMs)));
        },
        () => memory.set(key, value, ttlMs),
      );
    },
    async del(key) {
      // Both: a value or lock may have been taken in memory during an outage.
      await memory.del(key);
      await either(
        async () => {
          await redis.del(key);
        },
        async () => {},
      );
    },
    acquire(key, ttlMs) {
      return either(
        async () => {
          const token = randomUUID();
          return (await redis.set(key, token, 'PX', ttlMs, 'NX')) === 'OK' ? token : undefined;
        },
        () => memory.acquire(key, ttlMs),
      );
    },
    acquireNumbered(key, ttlMs, sequence) {
      return either(
        async () => {
          const token = randomUUID();
          const number = await scripts.acquireNumbered(
            key,
            sequence.key,
            token,
            String(Math.max(1, Math.round(ttlMs))),
            String(Math.floor(sequence.floor)),
            String(Math.max(1, Math.round(sequence.ttlMs))),
          );
          return number === null ? undefined : { token, number: Number(number) };
        },
        () => memory.acquireNumbered(key, ttlMs, sequence),
      );
    },
    async release(key, token) {
      await memory.release(key, token);
      // Only our own lock: after its TTL it may belong to another instance.
      await either(
        async () => {
          await scripts.release(key, token);
        },
        async () => {},
      );
    },
    incr(key, windowMs, limit, extend) {
      return either(
        () => redisIncr(key, windowMs, extend),
        () => memory.incr(key, windowMs, limit, extend),
      );
    },
    async decr(key) {
      await memory.decr(key);
      await either(
        async () => {
          await scripts.decr(key);
        },
        async () => {},
      );
    },
    // Shared counters answer from Redis or fail: their caller (the venue budget) keeps its own
    // per-instance count while Redis is away and says so.
    async addWithin(key, amount, cap, ttlMs) {
      const [added, count] = (await onRedis(() =>
        scripts.addWithin(key, String(amount), String(cap), String(Math.max(1, Math.round(ttlMs)))),
      )) as [number, number];
      return { added: added === 1, count: Number(count) };
    },
    async addAllWithin<P extends { until: number }>(
      pause: { key: string; now: number },
      list: readonly { key: string; amount: number; cap: number }[],
      ttlMs: number,
    ): Promise<AddAllWithin<P>> {
      const answer = (await onRedis(() =>
        scripts.addAllWithin(
          1 + list.length,
          pause.key,
          ...list.map((counter) => counter.key),
          String(Math.floor(pause.now)),
          String(Math.max(1, Math.round(ttlMs))),
          ...list.flatMap((counter) => [String(counter.amount), String(counter.cap)]),
        ),
      )) as [number, ...(number | string)[]];
      if (answer[0] === -1) return { outcome: 'paused', paused: JSON.parse(String(answer[1])) as P };
      if (answer[0] === 0) return { outcome: 'refused', over: Number(answer[1]), count: Number(answer[2]) };
      return { outcome: 'added', counts: answer.slice(1).map(Number) };
    },
    async raiseTo(key, value, ttlMs) {
      return Number(await onRedis(() => scripts.raiseTo(key, String(value), String(Math.max(1, Math.round(ttlMs))))));
    },
    async subtract(key, amount) {
      await onRedis(() => scripts.subtract(key, String(amount)));
    },
    async addDecaying(key, amount, cap, perSecond, raise) {
      const [added, level] = (await onRedis(() =>
        scripts.addDecaying(key, String(amount), String(cap), String(perSecond), raise ? '1' : '0'),
      )) as [number, string];
      return { added: added === 1, level: Number(level) };
    },
    async ping() {
      // Readiness asks Redis itself, never the memory behind it.
      await firstConnection();
      if (redis.status !== 'ready') throw new Error(`redis is ${redis.status}`);
      const started = performance.now();
      await redis.ping();
      return performance.now() - started;
    },
    async close() {
      closed = true;
      if (probing) clearInterval(probing);
      await memory.close();
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    },
  });
  return {
    ...store,
    available: () => up && redis.status === 'ready',
    redisOnly: {
      available: () => up && redis.status === 'ready',
      incr: (key, windowMs, _limit, extend) => onRedis(() => redisIncr(key, windowMs, extend)),
      async decr(key) {
        await onRedis(() => scripts.decr(key));
      },
      async del(key) {
        await onRedis(() => redis.del(key));
      },
    },
    /** Waits (bounded) for the first connection, before the server listens: requests never wait for it. */
    async connected(waitMs = FIRST_CONNECTION_MS) {
      if (!everUp && !outageLogged && firstReady) {
        await settledWithin(firstReady, waitMs);
      }
      return up;
    },
  };
}
