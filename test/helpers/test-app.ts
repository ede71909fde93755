// Builds the real application for tests: one database per test file (PGlite in memory by default,
// a fresh PostgreSQL database when DATABASE_URL is set), Redis when REDIS_URL is set (with a key
// prefix of its own), a fixed-or-real clock, and logs captured so tests can inspect them.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after } from 'node:test';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp, createModules, type ModuleOptions, type Modules } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config/config.ts';
import { JOB_NAMES } from '../../src/declarations.ts';
import { WEBHOOK_SECRET_VARIABLES } from '../../src/modules/webhooks/index.ts';
import { createMemoryCache, type Cache } from '../../src/platform/cache/cache.ts';
import { createRedisCache } from '../../src/platform/cache/redis-cache.ts';
import type { Clock } from '../../src/platform/clock.ts';
import type { HostLookup } from '../../src/platform/host-lookup.ts';
import { openDatabase, type Database } from '../../src/platform/db/database.ts';
import { createLogger } from '../../src/platform/observability/logger.ts';
import { createPlatform, type Platform } from '../../src/platform/platform.ts';
import { TEST_PASSWORD_COST } from './password-cost.ts';
import type { PasswordCost } from '../../src/platform/crypto/passwords.ts';
import { routeCatalog, type RouteEntry } from './route-catalog.ts';

import { createTestPostgres } from './test-postgres.ts';
import { TEST_ENCRYPTION_KEY, TEST_JWT_SECRET } from './test-secrets.ts';

export { TEST_ENCRYPTION_KEY, TEST_JWT_SECRET };
/**
 * Past its command timeout (500 ms in production) the cache answers from process memory, where the
 * counters kept in Redis are not: a login throttle would start again from nothing, and the venue budget
 * would admit a call the shared count refused. On a busy machine a Redis answer can take that long to be
 * read, so the apps under test wait for Redis this long instead (REDIS_COMMAND_TIMEOUT_MS, unless a test
 * sets its own); outages are tested with caches of their own (redis-outage, key-turns).
 */
const TEST_REDIS_COMMAND_TIMEOUT_MS = 10_000;

let shared: Promise<Database> | undefined;
let dropDatabase: (() => Promise<void>) | undefined;
let sharedUrl: string | undefined;

/** The PostgreSQL URL of this file's database (undefined on PGlite), for a second pool or a child process. */
export async function testDatabaseUrl(): Promise<string | undefined> {
  await testDatabase();
  return sharedUrl;
}

/** The database of this test file, created on first use and closed when the file ends. */
export function testDatabase(): Promise<Database> {
  shared ??= (async () => {
    const postgres = await createTestPostgres();
    if (!postgres) return openTestPglite();
    sharedUrl = postgres.url;
    dropDatabase = postgres.drop;
    // pg's connect timeout also bounds the wait for a pooled connection: tests that send a hundred
    // requests at once through these five on a busy machine wait longer than production's 3 s. The
    // outage tests open databases of their own with the real bounds.
    return openDatabase({ url: postgres.url, poolSize: 5, connectTimeoutMs: 20_000 });
  })();
  return shared;
}

/**
 * A PGlite of its own, in memory, loaded from the tar of the run's migrated cluster (TEST_PGLITE_IMAGE,
 * from test/helpers/database-template.ts), or migrated from nothing in memory without one. Opening it so
 * costs ~0.2 s of CPU more than opening a copy of the cluster's directory, once a process; truncating its
 * tables cost about 2.7 times less (~160 against ~430 ms of CPU here: in a directory, every table and
 * index gets new files on disk), before resetDatabase deleted the rows of the small ones instead.
 */
export function openTestPglite(): Promise<Database> {
  const image = process.env.TEST_PGLITE_IMAGE;
  if (!image) return openDatabase({});
  return openDatabase({ image: new Blob([readFileSync(image)]) });
}

/** Closes this process's database (a PostgreSQL one is dropped). */
export async function closeTestDatabase(): Promise<void> {
  if (!shared) return;
  const database = await shared;
  shared = undefined;
  await database.close();
  await dropDatabase?.();
}

// A file's own process closes its database as the file ends. A process that runs several files
// (test/helpers/file-worker.mjs) closes it after the last: node:test would run a hook registered
// here as soon as its first file ended.
if (!process.env.TEST_SHARED_PROCESS) after(closeTestDatabase);

/**
 * Empties this process's database, if it has opened one: a process that runs several files
 * (test/helpers/file-worker.mjs) empties it before each, so a file starts from nothing as in a process
 * of its own.
 */
export async function emptyTestDatabase(): Promise<void> {
  if (!shared) return;
  try {
    await resetDatabase(await shared);
  } catch {
    // The file before closed the database it was given (a file that does so should run in a process
    // of its own): the next file opens a new one, so one file's act does not fail the rest.
    await closeTestDatabase();
  }
}

/**
 * A table at most this large (its heap, in bytes) is emptied by DELETE, a larger one by TRUNCATE. What a test
 * or two wrote is deleted in a few milliseconds, where a TRUNCATE gives each table and index new files
 * (decision 1060: all of them took ~0.3 s of CPU on PGlite and 1.4–3 s on PostgreSQL, whose new files are
 * written to its log and synced). The rows a DELETE leaves dead are few, and stay below this bound until
 * the table is truncated: a scale test's seed, its pages and the planner's figures of it go as before.
 */
const DELETE_AT_MOST_BYTES = 64 * 1024;

/**
 * One statement (one round trip, which PGlite also takes): every table of the schema emptied, every
 * sequence that moved set back to its start, as `TRUNCATE … RESTART IDENTITY` left them. The DELETEs run
 * with the foreign keys' and the triggers' checks off for their transaction (`session_replication_role`,
 * as TRUNCATE fires no row trigger): every table is emptied, so no reference is left dangling.
 */
const EMPTY_EVERY_TABLE = `DO $reset$
DECLARE
  tables text[] := ARRAY(SELECT format('public.%I', tablename) FROM pg_tables WHERE schemaname = 'public');
  large text[] := '{}';
  t text;
  s record;
BEGIN
  SET LOCAL session_replication_role = replica;
  FOREACH t IN ARRAY tables LOOP
    IF pg_relation_size(t::regclass) > ${DELETE_AT_MOST_BYTES} THEN
      large := large || t;
    ELSE
      EXECUTE 'DELETE FROM ' || t;
    END IF;
  END LOOP;
  IF cardinality(large) > 0 THEN
    EXECUTE 'TRUNCATE ' || array_to_string(large, ', ') || ' CASCADE';
  END IF;
  FOR s IN SELECT schemaname, sequencename, start_value FROM pg_sequences
      WHERE schemaname = 'public' AND last_value IS NOT NULL LOOP
    PERFORM setval(format('%I.%I', s.schemaname, s.sequencename), s.start_value, false);
  END LOOP;
END
$reset$`;

/**
 * Empties every table (the schema stays), so each test starts from nothing: by DELETE (EMPTY_EVERY_TABLE),
 * or, for a PostgreSQL role that may not turn the checks off (not a superuser), by one TRUNCATE of them all.
 */
export async function resetDatabase(database: Database): Promise<void> {
  try {
    await database.db.execute(sql.raw(EMPTY_EVERY_TABLE));
  } catch (error) {
    if ((error as { code?: string }).code !== '42501') throw error;
    const tables = await database.rows<{ tablename: string }>(
      sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`,
    );
    if (tables.length === 0) return;
    const names = tables.map((t) => `"${t.tablename}"`).join(', ');
    await database.db.execute(sql.raw(`TRUNCATE ${names} RESTART IDENTITY CASCADE`));
  }
}

export interface TestApp {
  app: FastifyInstance;
  platform: Platform;
  /** The app's own module instances, for what no operation exposes (e.g. running a job's function). */
  modules: Modules;
  /** Every route the app registered, as registered. */
  routeCatalog: readonly RouteEntry[];
  config: Config;
  database: Database;
  /** Every log line the app wrote so far, parsed. */
  logLines(): Record<string, unknown>[];
  /** The raw log text, for "this secret appears nowhere" checks. */
  logText(): string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string | undefined>;
  clock?: Clock;
  /** Name resolution of users' webhook hosts (the system's by default). */
  lookup?: HostLookup;
  /** Keep the rows of earlier tests (default: the database is emptied first). */
  keepData?: boolean;
  /**
   * Redis key prefix; apps built with the same one share counters and cached values, as two
   * instances of the service on one Redis do. Default: a prefix of their own.
   */
  cachePrefix?: string;
  /** Extra routes for the test, registered before the app is ready (e.g. one that throws). */
  routes?: (app: FastifyInstance, platform: Platform) => Promise<void>;
  modules?: ModuleOptions;
  /** How many sign-ins' password checks may wait for a slot (default the service's own). */
  signInWaiting?: number;
  /** How many sign-ups' hashes may wait for a slot (default the service's own). */
  signUpWaiting?: number;
  /** The cost the app hashes passwords at (default the tests' low one). */
  passwordCost?: PasswordCost;
  /** The app's database instead of the file's (e.g. one opened through a TCP proxy to cut it); emptied first. */
  database?: Database;
}

export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await testDatabase());
  if (!options.keepData) await resetDatabase(database);
  const config = loadConfig(
    {
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tp-test-')),
      JWT_SECRET: TEST_JWT_SECRET,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: 'info',
      REDIS_COMMAND_TIMEOUT_MS: String(TEST_REDIS_COMMAND_TIMEOUT_MS),
      // A test that listens would otherwise open Binance's real stream; only one given a fake opens one.
      ...(options.env?.BINANCE_WS_URL ? {} : { MARKET_LIVE_STREAM: 'false' }),
      ...options.env,
    },
    { jobNames: JOB_NAMES, webhookSecrets: WEBHOOK_SECRET_VARIABLES },
  );
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const cache: Cache = process.env.REDIS_URL
    ? createRedisCache(process.env.REDIS_URL, {
        keyPrefix: options.cachePrefix ?? `test:${randomUUID()}:`,
        commandTimeoutMs: config.resilience.redisCommandTimeoutMs,
      })
    : createMemoryCache();
  let platform: Platform;
  let app: FastifyInstance;
  let modules: Modules;
  const catalog = routeCatalog();
  try {
    platform = await createPlatform(config, {
      database,
      cache,
      clock: options.clock,
      lookup: options.lookup,
      logger: createLogger(config.logLevel, sink),
      defaultMetrics: false,
      passwordCost: options.passwordCost ?? TEST_PASSWORD_COST,
      signInWaiting: options.signInWaiting,
      signUpWaiting: options.signUpWaiting,
    });
    modules = createModules(platform, options.modules);
    app = await buildApp(platform, modules, { observeRoute: catalog.observe });
    const { routes } = options;
    if (routes) await app.register(async (scope) => routes(scope, platform));
    await app.ready();
    modulesOf.set(app, modules);
  } catch (error) {
    // A test that expects the construction to fail must not be left holding a Redis connection.
    await cache.close().catch(() => {});
    throw error;
  }
  return {
    app,
    platform,
    modules,
    routeCatalog: catalog.entries,
    config,
    database,
    logLines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    logText: () => lines.join(''),
    async close() {
      await app.close();
      await cache.close();
    },
  };
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
  token: string;
  refreshToken: string;
  headers: { authorization: string };
}

/** The modules of every app buildTestApp made, for the operator's path (the command line's) in signIn. */
const modulesOf = new WeakMap<FastifyInstance, Modules>();

/**
 * A client address of its own for each account a test signs up, as separate people have: sign-ups
 * are limited per address (SIGNUP_LIMIT_PER_HOUR), and the suite must not lean on a raised limit.
 */
export function newClientAddress(): string {
  const [a, b, c] = randomBytes(3);
  return `10.${a}.${b}.${(c! % 250) + 1}`;
}

/**
 * Registers a user through the API, optionally promotes it as the operator does
 * (`npm run cli -- users:promote`, through the admin module with the operator as actor), and logs it in.
 */
export async function signIn(
  app: FastifyInstance,
  _database: Database,
  options: { role?: 'user' | 'admin'; email?: string; password?: string } = {},
): Promise<TestUser> {
  const email = options.email ?? `user-${randomBytes(4).toString('hex')}@example.com`;
  const password = options.password ?? `Pw-${randomBytes(8).toString('hex')}`;
  const remoteAddress = newClientAddress();
  const registered = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email, password },
    remoteAddress,
  });
  if (registered.statusCode !== 201) throw new Error(`register failed: ${registered.statusCode} ${registered.body}`);
  const id = registered.json<{ id: string }>().id;
  if (options.role === 'admin') {
    const modules = modulesOf.get(app);
    if (!modules) throw new Error('signIn promotes through the app of buildTestApp only');
    await modules.admin.users.updateUser(id, { role: 'admin' }, { id: null });
  }
  const login = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password },
    remoteAddress,
  });
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
  const { access_token: token, refresh_token: refreshToken } = login.json<{
    access_token: string;
    refresh_token: string;
  }>();
  return { id, email, password, token, refreshToken, headers: { authorization: `Bearer ${token}` } };
}

/** What a second notifications module of a test app needs (for its status alone): it follows no events. */
export function notificationsDeps(t: TestApp) {
  return {
    guards: t.modules.users.guards,
    accounts: t.modules.users.accounts,
    accountEvents: { observe: () => () => {} },
  };
}
