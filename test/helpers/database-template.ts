// The one migrated database a test run copies for each process (scripts/run-tests.mjs):
//   create  PGlite: copies the migrated image as a tar into a directory of the run's own, printing
//           {"TEST_PGLITE_IMAGE": path}: each process loads that tar into a PGlite in memory
//           (openTestPglite in test/helpers/test-app.ts). The tar is kept in the cache beside the image
//           (npm install made the image; a new migration needs a new one) and made there once, by
//           opening a copy of the image and dumping it: 4-5 CPU s that every run, the nested runs of
//           test/scripts among them, paid before its first file could start. The run's own copy,
//           because the cache keeps one image and a run in a checkout with other migrations replaces it
//           (pglite-image.ts), which would pull it from under files still to start.
//           PostgreSQL (DATABASE_URL): makes a migrated template database and prints
//           {"TEST_DATABASE_TEMPLATE": name}, which each file's database is created from.
//   drop    drops that template database and the files' databases named in TEST_DATABASES_DIR
//           (test/helpers/test-postgres.ts); the runner removes a PGlite run's tar itself.
import pg from 'pg';
import { openDatabase } from '../../src/platform/db/database.ts';
import { copyFileSync, cpSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

/** The migrated image's cluster as a tar, from a copy of it opened in `scratchDir`. */
async function dumpImage(scratchDir: string): Promise<Uint8Array> {
  const image = hasPgliteImage() ? pgliteImageDir() : await writePgliteImage();
  const own = path.join(scratchDir, 'pglite');
  cpSync(image, own, { recursive: true });
  const database = await openDatabase({ dataDir: own });
  const tar = new Uint8Array(await (await database.dumpImage!()).arrayBuffer());
  await database.close();
  rmSync(own, { recursive: true, force: true });
  return tar;
}

async function create(): Promise<Record<string, string>> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const runDir = mkdtempSync(path.join(tmpdir(), RUN_IMAGE_PREFIX));
    const tarPath = path.join(runDir, 'pglite.tar');
    const cached = `${pgliteImageDir()}.tar`;
    try {
      copyFileSync(cached, tarPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      writeFileSync(tarPath, await dumpImage(runDir));
      // Beside the cache's image, renamed into place whole: a run starting meanwhile copies all or nothing.
      const partial = `${cached}.${process.pid}.partial`;
      copyFileSync(tarPath, partial);
      renameSync(partial, cached);
    }
    return { TEST_PGLITE_IMAGE: tarPath };
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
  const filesDir = process.env.TEST_DATABASES_DIR;
  const names = filesDir ? readdirSync(filesDir).filter((name) => /^test_\w+$/.test(name)) : [];
  if (filesDir) rmSync(filesDir, { recursive: true, force: true });
  const url = process.env.DATABASE_URL;
  if (!url) return;
  const template = process.env.TEST_DATABASE_TEMPLATE;
  if (template) names.push(template);
  // All at once: concurrent drops wait on the same few checkpoints instead of one each.
  await Promise.all(
    names.map((name) => admin(url, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  );
}

const command = process.argv[2];
if (command === 'create') process.stdout.write(`${JSON.stringify(await create())}\n`);
else if (command === 'drop') await drop();
else throw new Error(`usage: database-template.ts create|drop (got ${command})`);
