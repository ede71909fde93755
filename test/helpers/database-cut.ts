// The test file's PostgreSQL database reached through a loopback TCP proxy (test/fakes/tcp-proxy.ts), so a
// test can take it away for real in the middle of what it tests: a pool of the production bounds' kind
// (a 2 s connect timeout) opened through the proxy, to give an app instead of the file's own pool.
import { openDatabase, type Database } from '../../src/platform/db/database.ts';
import { startTcpProxy, type TcpProxy } from '../fakes/tcp-proxy.ts';
import { testDatabaseUrl } from './test-app.ts';

export interface CuttableDatabase {
  /** The proxy itself: `mode('pass')` brings the database back, `tap` watches what the pool sends. */
  proxy: TcpProxy;
  /** A pool of four connections through the proxy. */
  database: Database;
  /** The database gone: new connections refused, open ones reset. */
  cut(): Promise<void>;
  /** Back as it was, for the next test (a test that fails with the database cut leaves it so): passing, untapped. */
  restore(): Promise<void>;
  /** Closes the pool, then the proxy. */
  close(): Promise<void>;
}

/** The file's database (PostgreSQL only: the caller skips without DATABASE_URL) behind a proxy of its own. */
export async function cuttableTestDatabase(): Promise<CuttableDatabase> {
  const found = await testDatabaseUrl();
  if (!found) throw new Error('a database is cut through a proxy in front of PostgreSQL: DATABASE_URL is not set');
  const url = new URL(found);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  const database = await openDatabase({ url: proxy.url(url.toString()), poolSize: 4, connectTimeoutMs: 2_000 });
  return {
    proxy,
    database,
    async cut() {
      // The listener stops accepting at once; its close completes once the reset has ended the open connections.
      const refusing = proxy.mode('refuse');
      proxy.reset();
      await refusing;
    },
    async restore() {
      proxy.tap();
      await proxy.mode('pass');
    },
    async close() {
      await database.close();
      await proxy.close();
    },
  };
}
