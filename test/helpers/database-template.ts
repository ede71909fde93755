// The one migrated database a test run copies for each file (scripts/run-tests.mjs):
//   create  PGlite: makes sure the migrated image exists (npm install made it; a new migration needs
//           a new one), copies it into a directory of the run's own and prints {"TEST_PGLITE_DIR": path}:
//           each file opens a copy of that (openTestPglite in test/helpers/test-app.ts). The run's own
//           copy, because the cache keeps one image and a run in a checkout with other migrations
//           replaces it (pglite-image.ts), which would pull it from under files still to start.
//           PostgreSQL (DATABASE_URL): makes a migrated template database and prints
//           {"TEST_DATABASE_TEMPLATE": name}, which each file's database is created from.
//   drop    drops that template database, or removes the run's copy of the image.
import pg from 'pg';
import { openDatabase } from '../../src/platform/db/database.ts';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hasPgliteImage, pgliteImageDir, writePgliteImage } from '../../src/platform/db/pglite-image.ts';

const RUN_IMAGE_PREFIX = 'tp-run-image-';

async function admin<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

async function create(): Promise<Record<string, string>> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const image = hasPgliteImage() ? pgliteImageDir() : await writePgliteImage();
    const own = path.join(mkdtempSync(path.join(tmpdir(), RUN_IMAGE_PREFIX)), 'pglite');
    cpSync(image, own, { recursive: true });
    return { TEST_PGLITE_DIR: own };
  }
  const name = `test_template_${process.pid}`;
  await admin(url, (client) => client.query(`CREATE DATABASE ${name}`));
  const target = new URL(url);
  target.pathname = `/${name}`;
  const database = await openDatabase({ url: target.toString(), poolSize: 1 });
  await database.close();
  return { TEST_DATABASE_TEMPLATE: name };
}

async function drop(): Promise<void> {
  const image = process.env.TEST_PGLITE_DIR;
  if (image && path.basename(path.dirname(image)).startsWith(RUN_IMAGE_PREFIX)) {
    rmSync(path.dirname(image), { recursive: true, force: true });
  }
  const url = process.env.DATABASE_URL;
  const name = process.env.TEST_DATABASE_TEMPLATE;
  if (!url || !name) return;
  await admin(url, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

const command = process.argv[2];
if (command === 'create') process.stdout.write(`${JSON.stringify(await create())}\n`);
else if (command === 'drop') await drop();
else throw new Error(`usage: database-template.ts create|drop (got ${command})`);
