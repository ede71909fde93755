// One schema, two engines: PGlite (embedded, the default) or PostgreSQL over node-postgres.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { PROJECT_ROOT } from '../project-root.ts';
import { lockDataDir } from './data-dir-lock.ts';

export type Db = PgDatabase<PgQueryResultHKT>;
/** A transaction or the database itself: repositories accept either. */
export type DbExecutor = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute' | 'selectDistinct'> & {
  transaction: Db['transaction'];
};

export interface Database {
  readonly db: Db;
  readonly kind: 'pglite' | 'postgres';
  /** Rows of a raw statement, whichever engine answers. */
  rows<T = Record<string, unknown>>(query: ReturnType<typeof sql>): Promise<T[]>;
  ping(): Promise<number>;
  /**
   * LISTEN on a channel: `onMessage` gets each NOTIFY payload. PostgreSQL: on a connection of its own,
   * re-opened after a loss (`onReconnect` then runs: notifications sent meanwhile are gone). Answers the stop.
   */
  listen(channel: string, onMessage: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  /** PGlite only: the whole cluster as one tar file (PGlite's dumpDataDir), for backups. */
  dumpImage?(): Promise<Blob>;
  close(): Promise<void>;
}

/** An OFFSET PostgreSQL accepts (bigint): one past every row there could be is as good as any larger one. */
export const rowOffset = (offset: number): number => Math.min(offset, Number.MAX_SAFE_INTEGER);

export const MIGRATIONS_FOLDER = path.join(PROJECT_ROOT, 'drizzle');

export interface DatabaseOptions {
  /** PostgreSQL URL; PGlite when absent. */
  url?: string;
  /** PGlite data directory; in memory when absent. */
  dataDir?: string;
  /** node-postgres pool size. */
  poolSize?: number;
  /** PGlite in memory only: start from this `dumpImage` tar instead of an empty cluster. */
  image?: Blob;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options.poolSize ?? 10) : openPglite(options.dataDir, options.image);
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
  `CREATE INDEX IF NOT EXISTS users_full_name_trgm_idx ON users USING gin ((first_name || ' ' || last_name) gin_trgm_ops)`,
];

async function createTrigramIndexes(query: (text: string) => Promise<{ rows: unknown[] }>): Promise<void> {
  const { rows } = await query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`);
  if (rows.length === 0) return;
  for (const statement of TRIGRAM_INDEXES) await query(statement);
}

async function createPglite(options: { dataDir?: string; loadDataDir?: Blob }) {
  const [{ PGlite }, { pg_trgm }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite/contrib/pg_trgm')]);
  return PGlite.create({ ...options, extensions: { pg_trgm }, startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
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
  const [{ drizzle }, { migrate }] = await Promise.all([import('drizzle-orm/pglite'), import('drizzle-orm/pglite/migrator')]);
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  try {
    const client = await createPglite(dataDir ? { dataDir } : { loadDataDir: image });
    const db = drizzle({ client }) as unknown as Db;
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

async function openPostgres(url: string, poolSize: number): Promise<Database> {
  const [{ default: pg }, { drizzle }, { migrate }] = await Promise.all([
    import('pg'),
    import('drizzle-orm/node-postgres'),
    import('drizzle-orm/node-postgres/migrator'),
  ]);
  // numeric and bigint stay strings: amounts are exact decimals, never floats.
  // A connection that cannot be made in 5 s fails the query instead of hanging the request.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  pool.on('error', () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  const db = drizzle({ client: pool }) as unknown as Db;
  // Two instances starting together must not both migrate: serialise on an advisory lock.
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock(7340912)');
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm').catch(() => {
        // Without the extension the search falls back to sequential ILIKE; not fatal.
      });
      await migrate(drizzle({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
      await createTrigramIndexes((text) => client.query(text));
    } finally {
      await client.query('SELECT pg_advisory_unlock(7340912)');
    }
  } finally {
    client.release();
  }
  const listen: Listen = (channel, onMessage, onReconnect) => listenOnOwnConnection(pg, url, channel, onMessage, onReconnect);
  return wrap(db, 'postgres', listen, () => pool.end());
}

type Listen = Database['listen'];

/** LISTEN needs a session of its own (a pooled one would be handed to other queries). */
async function listenOnOwnConnection(
  pg: typeof import('pg').default,
  url: string,
  channel: string,
  onMessage: (payload: string) => void,
  onReconnect?: () => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: InstanceType<typeof pg.Client> | undefined;
  let retry: NodeJS.Timeout | undefined;
  const quoted = `"${channel.replaceAll('"', '""')}"`;

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true });
    next.on('notification', (message) => {
      if (message.channel === channel) onMessage(message.payload ?? '');
    });
    next.on('error', () => {
      // Reported by 'end', which reconnects.
    });
    next.on('end', () => {
      if (client !== next || stopped) return;
      client = undefined;
      scheduleReconnect();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${quoted}`);
    } catch (error) {
      await next.end().catch(() => {});
      throw error;
    }
    client = next;
  }

  function scheduleReconnect(): void {
    retry = setTimeout(() => {
      connect().then(
        () => onReconnect?.(),
        () => scheduleReconnect(),
      );
    }, 1_000);
    retry.unref();
  }

  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}

function wrap(db: Db, kind: Database['kind'], listen: Listen, close: () => Promise<void>): Database {
  let closed = false;
  return {
    db,
    kind,
    listen,
    async rows<T>(query: ReturnType<typeof sql>) {
      const result = (await db.execute(query)) as unknown as { rows: T[] };
      return result.rows;
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
