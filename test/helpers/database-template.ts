// The one migrated database a test run copies for each file (scripts/run-tests.mjs):
//   create  PGlite: makes sure the migrated image exists (npm install made it; a new migration needs
//           a new one), dumps it once into a tar beside it, and prints {"TEST_PGLITE_IMAGE": path}: each
//           file loads that into an in-memory PGlite (test/helpers/test-app.ts), which costs less
//           than copying 40 MB of files per file. PostgreSQL (DATABASE_URL): makes a migrated template database and
//           prints {"TEST_DATABASE_TEMPLATE": name}, which each file's database is created from.
//   drop    drops that template database.
import pg from 'pg';
import { openDatabase } from '../../src/platform/db/database.ts';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hasPgliteImage, pgliteImageDir, writePgliteImage } from '../../src/platform/db/pglite-image.ts';

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
    if (!hasPgliteImage()) await writePgliteImage();
    const tar = `${pgliteImageDir()}.tar`;
    if (!existsSync(tar)) {
      // Opened from a copy: opening the image itself would change it.
      const copy = path.join(mkdtempSync(path.join(tmpdir(), 'tp-image-')), 'pglite');
      cpSync(pgliteImageDir(), copy, { recursive: true });
      const database = await openDatabase({ dataDir: copy });
      const image = await database.dumpImage!();
      await database.close();
      writeFileSync(`${tar}.${process.pid}`, Buffer.from(await image.arrayBuffer()));
      cpSync(`${tar}.${process.pid}`, tar);
      rmSync(path.dirname(copy), { recursive: true, force: true });
      rmSync(`${tar}.${process.pid}`);
    }
    return { TEST_PGLITE_IMAGE: tar };
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
  const url = process.env.DATABASE_URL;
  const name = process.env.TEST_DATABASE_TEMPLATE;
  if (!url || !name) return;
  await admin(url, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

const command = process.argv[2];
if (command === 'create') process.stdout.write(`${JSON.stringify(await create())}\n`);
else if (command === 'drop') await drop();
else throw new Error(`usage: database-template.ts create|drop (got ${command})`);
