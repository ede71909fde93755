// The shared infrastructure every module receives: built once from Config, closed once at shutdown.
import path from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config/config.ts';
import { createTokenService, type TokenService } from './auth/tokens.ts';
import { createMemoryCache, type Cache } from './cache/cache.ts';
import { createGuardCounters, type GuardCounters } from './cache/guard-counters.ts';
import { createRedisCache } from './cache/redis-cache.ts';
import { systemClock, type Clock } from './clock.ts';
import { resolveSecrets, type GeneratedSecret, type SecretSource } from './crypto/data-dir-secrets.ts';
import { createPasswordHasher, passwordWork, type PasswordCost, type PasswordHasher } from './crypto/passwords.ts';
import { createSecretBox, type SecretBox } from './crypto/secret-box.ts';
import { openDatabase, type Database } from './db/database.ts';
import { databaseStartError } from './db/start-errors.ts';
import { seedFromPgliteImage } from './db/pglite-image.ts';
import { keepDataDirPrivate, restrictNewFiles } from './data-dir-access.ts';
import { createLogger } from './observability/logger.ts';
import { createMetrics, type Metrics } from './observability/metrics.ts';
import { systemLookup, type HostLookup } from './host-lookup.ts';
import { createOutboxWorker, type OutboxWorker } from './outbox/outbox-worker.ts';
import { createEgress, type Egress } from './venue-budget/egress.ts';
import { createHttpTransport } from './venue-budget/http-transport.ts';
import { createVenueBudgets, type VenueBudgets } from './venue-budget/venue-budget.ts';

export interface Platform {
  readonly config: Config;
  /** Where JWT_SECRET and ENCRYPTION_KEY came from: the environment, a file in DATA_DIR, or made at this start. */
  readonly secretSources: Readonly<Record<GeneratedSecret, SecretSource>>;
  readonly database: Database;
  readonly cache: Cache;
  /** The counters that stop guessing: the cache's, in the database while Redis is away (decision 455). */
  readonly guardCounters: GuardCounters;
  readonly clock: Clock;
  readonly secretBox: SecretBox;
  readonly tokens: TokenService;
  /** Password hashing at the production cost (decision 002); tests alone hand in a lower one. */
  readonly passwords: PasswordHasher;
  readonly outbox: OutboxWorker;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** One request-weight budget per venue, shared by every module calling it and every instance. */
  readonly venueBudgets: VenueBudgets;
  /** The one way to a venue: `egress.venue(id)` gives its budget and a fetch charged to it (decision 250). */
  readonly egress: Egress;
  /**
   * Fetch for outbound HTTP to what is not a venue (providers, the tracker, chat); tests pass one that
   * refuses anything but loopback. Venues are reached through `egress`, which sends through this one.
   */
  readonly fetch: typeof fetch;
  /** Name resolution for requests to destinations users choose (their webhooks), vetted before connecting. */
  readonly lookup: HostLookup;
  close(): Promise<void>;
}

interface PlatformOverrides {
  clock?: Clock;
  logger?: Logger;
  database?: Database;
  cache?: Cache;
  fetch?: typeof fetch;
  lookup?: HostLookup;
  /** Redis key prefix, so parallel test files sharing one Redis never see each other's keys. */
  redisKeyPrefix?: string;
  outboxPollMs?: number;
  defaultMetrics?: boolean;
  /**
   * scrypt's cost for new password hashes, in code only: tests lower it to spare CPU. Nothing in
   * Config or the environment reaches it, so no deployment can weaken its hashes (decision 305).
   */
  passwordCost?: PasswordCost;
  /** How many sign-ins' password checks may wait for a slot (decision 735); tests lower it. */
  signInWaiting?: number;
  /** How many sign-ups' hashes may wait for a slot (decision 1080); tests lower it. */
  signUpWaiting?: number;
}

/** DATA_DIR made the owner's only, or a one-line ConfigError saying why it cannot be. */
function privateDataDir(dataDir: string): number | undefined {
  try {
    return keepDataDirPrivate(dataDir);
  } catch (error) {
    throw new ConfigError([`DATA_DIR ${dataDir} cannot be made private to this user (${(error as Error).message})`]);
  }
}

export async function createPlatform(config: Config, overrides: PlatformOverrides = {}): Promise<Platform> {
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const dataDir = path.join(config.dataDir, 'pglite');
  restrictNewFiles();
  if (!overrides.database && !config.databaseUrl) seedFromPgliteImage(dataDir);
  const secrets = resolveSecrets(config);
  const database =
    overrides.database ??
    (await openDatabase({
      url: config.databaseUrl,
      dataDir,
      queryTimeoutMs: config.resilience.databaseQueryTimeoutMs,
      connectTimeoutMs: config.resilience.databaseConnectTimeoutMs,
    }).catch((error: unknown) => {
      // What DATABASE_URL itself gets wrong is one line naming it, not a stack.
      throw (
        (config.databaseUrl &&
          databaseStartError(error, config.databaseUrl, config.resilience.databaseConnectTimeoutMs)) ||
        error
      );
    }));
  // After the database opened: PGlite writes some files at its start with modes of its own.
  const opened = privateDataDir(config.dataDir);
  if (opened !== undefined)
    logger.warn(
      { dataDir: config.dataDir, mode: opened.toString(8) },
      "DATA_DIR was open to others; it and everything in it are now the owner's only (0700)",
    );
  const cache =
    overrides.cache ??
    (config.redisUrl
      ? createRedisCache(config.redisUrl, {
          keyPrefix: overrides.redisKeyPrefix ?? config.redisKeyPrefix,
          commandTimeoutMs: config.resilience.redisCommandTimeoutMs,
          logger,
        })
      : createMemoryCache());
  // Redis's first connection, bounded: the start goes on without it (memory, one warning line).
  await (cache as Partial<{ connected(): Promise<boolean> }>).connected?.();
  const secretBox = createSecretBox(secrets.encryptionKey, secrets.oldEncryptionKeys);
  const tokens = createTokenService(secrets.jwtSecret, config.auth.accessTokenTtlSeconds, clock);
  const fetchImpl = overrides.fetch ?? globalThis.fetch;
  // The venues' door sends over node:http rather than fetch's web streams, a live order's costliest step
  // of ours (decision 530); a fetch handed in (tests) is the door's base as it is the platform's.
  const venueTransport = overrides.fetch ? undefined : createHttpTransport(globalThis.fetch);
  const outbox = createOutboxWorker({ database, clock, logger, pollMs: overrides.outboxPollMs });
  const metrics = createMetrics(overrides.defaultMetrics ?? true);
  metrics.gauge(
    'outbox_backlog',
    'Outbox messages waiting to be delivered',
    async () => (await outbox.stats()).pending,
  );
  metrics.gauge(
    'outbox_dead_letters',
    'Outbox messages that exhausted their retries',
    async () => (await outbox.stats()).dead,
  );
  metrics.gauge(
    'password_hashes_computed',
    'Password hashes computed by this process (sign-ups, password changes)',
    () => passwordWork().hashed,
  );
  metrics.gauge(
    'password_checks_computed',
    'Password checks computed by this process (logins, re-authentication)',
    () => passwordWork().checked,
  );
  metrics.gauge(
    'password_work_waiting',
    'Password hashes and checks waiting for a free slot',
    () => passwordWork().waiting,
  );
  const venueBudgets = createVenueBudgets({
    cache,
    clock,
    settings: { ...config.venueBudget, sharedTimeoutMs: config.resilience.redisCommandTimeoutMs },
    metrics,
    logger,
  });

  return {
    config,
    secretSources: secrets.sources,
    database,
    cache,
    guardCounters: createGuardCounters(cache, database),
    clock,
    secretBox,
    tokens,
    passwords: createPasswordHasher(overrides.passwordCost, {
      signInWaiting: overrides.signInWaiting,
      signUpWaiting: overrides.signUpWaiting,
    }),
    outbox,
    logger,
    metrics,
    venueBudgets,
    egress: createEgress(venueBudgets, venueTransport?.fetch ?? fetchImpl),
    fetch: fetchImpl,
    lookup: overrides.lookup ?? systemLookup,
    async close() {
      await outbox.stop();
      await venueBudgets.close();
      venueTransport?.close();
      // What the caller handed in, the caller closes (tests share one database per file).
      if (!overrides.cache) await cache.close();
      if (!overrides.database) await database.close();
    },
  };
}
