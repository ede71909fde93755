// A PostgreSQL database of the test file's own, when DATABASE_URL names a server: created from the run's
// migrated template (TEST_DATABASE_TEMPLATE, test/helpers/database-template.ts) or empty without one, its
// commits not waiting for the disk, and dropped with whatever is still connected to it. Only `pg`: a file
// that starts the service as processes (test/helpers/processes.ts) gets its database without loading the
// application into its own process.
//
// Under the test runner (TEST_DATABASES_DIR set), a database is named there as it is made and dropped by the
// runner once every file has ended, not by its file: PostgreSQL 15's DROP DATABASE writes out every dirty
// page of the server (an immediate checkpoint) and waits for it, 1 to 3.5 s while other files write, which
// the ending file paid and the running ones felt. At the run's end the drops share a checkpoint or two, and a
// file ended for its timeout no longer leaves its database behind (decision 1210).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  url: string;
  drop(): Promise<void>;
}

/** A new database on the server DATABASE_URL names, or undefined when it names none (PGlite). */
export async function createTestPostgres(): Promise<TestPostgres | undefined> {
  const url = process.env.DATABASE_URL;
  if (!url) return undefined;
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const runnerDrops = process.env.TEST_DATABASES_DIR;
  if (runnerDrops) writeFileSync(path.join(runnerDrops, name), '');
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const template = process.env.TEST_DATABASE_TEMPLATE;
  await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  // A commit answers without waiting for its log record to reach the disk (decision 1060): what every other
  // session sees is the same, only a crash of the server could lose the last commits, and no test crashes it.
  await admin.query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  await admin.end();
  const target = new URL(url);
  target.pathname = `/${name}`;
  return {
    url: target.toString(),
    async drop() {
      if (runnerDrops) return;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
