// One schema, two engines: PGlite (embedded, the default) or PostgreSQL over node-postgres.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { PROJECT_ROOT } from '../project-root.ts';
import { ADVISORY_LOCK } from './advisory-locks.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { databaseOutage, QUERY_READ_TIMEOUT } from './failures.ts';
import { createPgListener, type Listen } from './pg-listener.ts';
import { withNamedStatements } from './pglite-statements.ts';

export {
  databaseOutage,
  isDatabaseUnavailable,
  isPoolSaturated,
  statementTimeoutOf,
} from './failures.ts';

export type Db = PgDatabase<PgQueryResultHKT>;
/** A transaction or the database itself: repositories accept either. */
export type DbExecutor = Pick<
  Db,
  'select' | 'insert' | 'update' | 'delete' | 'execute' | 'selectDistinct' | 'selectDistinctOn'
> & {
  transaction: Db['transaction'];
};

export interface Database {
  readonly db: Db;
  readonly kind: 'pglite' | 'postgres';
  /** Rows of a raw statement, whichever engine answers. */
  rows<T = Record<string, unknown>>(query: ReturnType<typeof sql>): Promise<T[]>;
  ping(): Promise<number>;
  /**
   * LISTEN on a channel: `onMessage` gets each NOTIFY payload. PostgreSQL: on one session for every
   * channel, kept apart from the pool and re-opened after a loss (every channel's `onReconnect` then
   * runs: notifications sent meanwhile are gone; decision 750). Answers the stop.
   */
  listen(channel: string, onMessage: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  /** PGlite only: the whole cluster as one tar file (PGlite's dumpDataDir), for backups. */
  dumpImage?(): Promise<Blob>;
  close(): Promise<void>;
}

/** An OFFSET PostgreSQL accepts (bigint): one past every row there could be is as good as any larger one. */
export const rowOffset = (offset: number): number => Math.min(offset, Number.MAX_SAFE_INTEGER);

/** The rows of `db.execute`'s answer, which both drivers name `rows`. */
export const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** A timestamp read through raw SQL, which the engines answer as a `Date` (node-postgres) or text (PGlite). */
export const dateOrNull = (value: Date | string | null | undefined): Date | null =>
  value === null || value === undefined ? null : new Date(value);

export const MIGRATIONS_FOLDER = path.join(PROJECT_ROOT, 'drizzle');

interface DatabaseOptions {
  /** PostgreSQL URL; PGlite when absent. */
  url?: string;
  /** PGlite data directory; in memory when absent. */
  dataDir?: string;
  /** node-postgres pool size. */
  poolSize?: number;
  /** PGlite in memory only: start from this `dumpImage` tar instead of an empty cluster. */
  image?: Blob;
  /** PostgreSQL: bound of one statement, on the server (statement_timeout) and in the client. */
  queryTimeoutMs?: number;
  /** PostgreSQL: bound of opening a connection. */
  connectTimeoutMs?: number;
}

const DEFAULT_QUERY_TIMEOUT_MS = 5_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 3_000;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (!options.url) return openPglite(options.dataDir, options.image);
  return openPostgres(options.url, {
    poolSize: options.poolSize ?? 10,
    queryTimeoutMs: options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
  });
}

/**
 * PGlite sizes PostgreSQL for a server of its own: 160 MB of shared buffers, taken from this
 * process's memory. The embedded database is one connection's, and its working set is small; 16 MB
 * keeps the idle process small (decision 016 has the measurements).
 */
export const PGLITE_SETTINGS = ['-c', 'shared_buffers=16MB'];

/**
 * The admin search's trigram indexes (decision 010): made at start, where pg_trgm exists, rather than
 * by a migration, so that a PostgreSQL without the extension still starts (and gets them on the first
 * start after it is installed). The name index covers first name, last name and "first last".
 */
const TRIGRAM_INDEXES = [
  `CREATE INDEX IF NOT EXISTS users_email_trgm_idx ON users USING gin (email gin_trgm_ops)`,
  'CREATE INDEX IF NOT EXISTS users_full_name_trgm_idx ' +
    `ON users USING gin ((first_name || ' ' || last_name) gin_trgm_ops)`,
];

async function createTrigramIndexes(query: (text: string) => Promise<{ rows: unknown[] }>): Promise<void> {
  const { rows } = await query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`);
  if (rows.length === 0) return;
  for (const statement of TRIGRAM_INDEXES) await query(statement);
}

async function createPglite(options: { dataDir?: string; loadDataDir?: Blob }) {
  const [{ PGlite }, { pg_trgm }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
  ]);
  return PGlite.create({
    ...options,
    extensions: { pg_trgm },
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS],
  });
}

/** Fills an empty data directory from a `dumpImage` tar, under the directory's lock. */
export async function restorePgliteImage(dataDir: string, image: Blob): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const unlock = lockDataDir(dataDir);
  try {
    await (await createPglite({ dataDir, loadDataDir: image })).close();
  } finally {
    unlock();
  }
}

async function openPglite(dataDir: string | undefined, image: Blob | undefined): Promise<Database> {
  const [{ drizzle }, { migrate }, pglite] = await Promise.all([
    import('drizzle-orm/pglite'),
    import('drizzle-orm/pglite/migrator'),
    import('@electric-sql/pglite'),
  ]);
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  try {
    const client = await createPglite(dataDir ? { dataDir } : { loadDataDir: image });
    // drizzle's session asks the client for `query` and `transaction` only.
    const db = drizzle({ client: withNamedStatements(client, pglite) as typeof client }) as unknown as Db;
    await db.execute(sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await migrate(drizzle({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
    await createTrigramIndexes((text) => client.query(text));
    const listen: Listen = async (channel, onMessage) => {
      const stop = await client.listen(channel, onMessage);
      return async () => {
        if (!client.closed) await stop();
      };
    };
    const database = wrap(db, 'pglite', listen, async () => {
      await client.close();
      unlock();
    });
    return { ...database, dumpImage: () => client.dumpDataDir('none') };
  } catch (error) {
    unlock();
    throw error;
  }
}

/** node-postgres' own message for a query that outlived `query_timeout`. */

async function openPostgres(
  url: string,
  options: { poolSize: number; queryTimeoutMs: number; connectTimeoutMs: number },
): Promise<Database> {
  const [{ default: pg }, { drizzle }, { migrate }] = await Promise.all([
    import('pg'),
    import('drizzle-orm/node-postgres'),
    import('drizzle-orm/node-postgres/migrator'),
  ]);

  // Migrations run on a connection of their own, without the statement bound: an index build may
  // take longer than any request should. Two instances starting together must not both migrate:
  // they serialise on an advisory lock.
  const migrator = new pg.Client({ connectionString: url, connectionTimeoutMillis: options.connectTimeoutMs });
  migrator.on('error', () => {
    // The query in progress fails with the same error; the start fails with it.
  });
  await migrator.connect();
  try {
    await migrator.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCK.migrations]);
    try {
      await migrator.query('CREATE EXTENSION IF NOT EXISTS pg_trgm').catch(() => {
        // Without the extension the search falls back to sequential ILIKE; not fatal.
      });
      await migrate(drizzle({ client: migrator }), { migrationsFolder: MIGRATIONS_FOLDER });
      await createTrigramIndexes((text) => migrator.query(text));
    } finally {
      await migrator.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCK.migrations]);
    }
  } finally {
    await migrator.end().catch(() => {});
  }

  /**
   * A client whose query outlived the client-side bound is cut: its connection is still busy with
   * that statement (a hung server never answers it), so the pool must not hand it out again. The
   * cut makes the client unqueryable and the pool replaces it (decision 102).
   */
  class BoundedClient extends pg.Client {
    override query(...args: unknown[]): never {
      const cut = (error: unknown) => {
        if (error instanceof Error && error.message === QUERY_READ_TIMEOUT) {
          (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
        }
      };
      const last = args.at(-1);
      if (typeof last === 'function') {
        args[args.length - 1] = (error: unknown, result: unknown) => {
          cut(error);
          (last as (error: unknown, result: unknown) => void)(error, result);
        };
        return (super.query as (...a: unknown[]) => never)(...args);
      }
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      if (result && typeof (result as Promise<unknown>).then === 'function')
        (result as Promise<unknown>).then(undefined, cut);
      return result as never;
    }
  }

  // numeric and bigint stay strings: amounts are exact decimals, never floats.
  // Every statement is bounded twice: by the server (statement_timeout, which also frees the
  // server's side) and by the client (query_timeout, which also holds when the server is frozen or
  // the link is cut without a reset). A connection that cannot be made in time fails the query.
  // A statement the server stopped is slow, not an outage (decision 121).
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    statement_timeout: options.queryTimeoutMs,
    // The server's bound fires first on a database that answers (a slow statement, 57014); the
    // client's, a second later, only on one that does not (an outage).
    query_timeout: options.queryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
    keepAlive: true,
    // Every statement with values is planned once, for any values: the named ones (prepared.ts,
    // decision 192) and the unnamed ones too, since node-postgres binds values through the extended
    // protocol and the unnamed statement follows plan_cache_mode. A read whose best plan depends on
    // a value needs an index that suits every value (the admin list's role and status) or runs under
    // `SET LOCAL plan_cache_mode = force_custom_plan` (a search with a filter; decision 401).
    // No JIT: a plan made for any `LIMIT` is costed for a tenth of the table, which passes JIT's
    // threshold, and compiling took 5 ms of a 0.5 ms page on every run (decision 192).
    options: '-c plan_cache_mode=force_generic_plan -c jit=off',
    Client: BoundedClient as unknown as typeof pg.Client,
  });
  // node-postgres emits 'error' on a client whose connection dies, idle in the pool or checked out
  // (a transaction in progress): without a listener on each, that event would end the process. The
  // query in progress fails with the same error and the request answers 503 (error-handler.ts).
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  databaseOutage.poolWaitMs = options.connectTimeoutMs;
  pool.on('release', (error: unknown) => {
    if (!error) databaseOutage.answeredAt = Date.now();
  });
  pool.on('connect', (client) => {
    databaseOutage.connected();
    client.on('error', () => {
      // Checked out: the query or transaction in progress fails with this error itself.
    });
  });
  guardCheckouts(pool);
  const db = drizzle({ client: pool }) as unknown as Db;
  const listener = createPgListener({
    Client: BoundedClient as unknown as typeof pg.Client,
    url,
    connectTimeoutMs: options.connectTimeoutMs,
    queryTimeoutMs: options.queryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
  });
  return wrap(db, 'postgres', listener.listen, async () => {
    await listener.close();
    await pool.end();
  });
}

/** How much longer the client waits for a statement than the server lets it run. */
export const CLIENT_TIMEOUT_MARGIN_MS = 1_000;

type Checkout = import('pg').PoolClient;

/**
 * Transactions check a client out of the pool (drizzle's `transaction()`); two ways it could stay
 * out for good, each of which would drain the pool until every request waited for a connection:
 * drizzle releases nothing when `BEGIN` itself fails, and a client whose connection died mid-way
 * would wait for a release that may never come. So a checked-out client whose connection errors or
 * ends is given back at once, as broken (the pool drops it), and a second release is a no-op.
 */
function guardCheckouts(pool: import('pg').Pool): void {
  const connect = pool.connect.bind(pool) as (callback?: unknown) => unknown;
  (pool as unknown as { connect: (callback?: unknown) => unknown }).connect = (callback?: unknown) => {
    // The pool's own query() checks out with a callback and always releases: left as it is.
    if (typeof callback === 'function') return connect(callback);
    return (connect() as Promise<Checkout>).then((client) => {
      const release = client.release.bind(client);
      let released = false;
      const onDead = (error?: Error) => releaseOnce(error ?? new Error('Connection terminated'));
      const releaseOnce = (error?: Error | boolean) => {
        if (released) return;
        released = true;
        client.removeListener('error', onDead);
        client.removeListener('end', onDead);
        release(error);
      };
      client.once('error', onDead);
      client.once('end', onDead);
      client.release = releaseOnce;
      return client;
    });
  };
}

function wrap(db: Db, kind: Database['kind'], listen: Listen, close: () => Promise<void>): Database {
  let closed = false;
  return {
    db,
    kind,
    listen,
    async rows<T>(query: ReturnType<typeof sql>) {
      return rowsOf<T>(await db.execute(query));
    },
    async ping() {
      const started = performance.now();
      await db.execute(sql`SELECT 1`);
      return performance.now() - started;
    },
    async close() {
      if (closed) return;
      closed = true;
      await close();
    },
  };
}
