// Operator commands over the database: migrate, and backup and restore of the embedded one. A
// PostgreSQL deployment backs up with its own tools (pg_dump), which the README shows.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../config/config.ts';
import { DERIVED_FIGURES, JOB_NAMES } from '../declarations.ts';
import { MIGRATIONS_FOLDER, restorePgliteImage } from '../platform/db/database.ts';
import { withRelativeNames } from '../platform/db/tar-paths.ts';
import { lockDataDir } from '../platform/db/data-dir-lock.ts';
import { reconcileFigures } from '../platform/db/derived-figures.ts';
import {
  MAX_QUERY_TIMEOUT_MS,
  parseOptions,
  print,
  Problems,
  RefusedError,
  withPlatform,
  type Command,
} from './cli-kit.ts';

const PG_DUMP_HINT =
  'the database is PostgreSQL (DATABASE_URL): back it up with pg_dump, e.g. pg_dump --format=custom ' +
  '--file=backup.dump "$DATABASE_URL", and restore with pg_restore --clean --dbname="$DATABASE_URL" backup.dump';

function embeddedDataDir(): string {
  const config = loadConfig(process.env, { jobNames: JOB_NAMES });
  if (config.databaseUrl) throw new RefusedError(PG_DUMP_HINT);
  return path.join(config.dataDir, 'pglite');
}

const migrate: Command = {
  usage: 'db:migrate',
  summary: 'Apply the migrations not applied yet (every start does too) and say where the database stands.',
  async run(args) {
    parseOptions(args, {});
    await withPlatform(async (platform) => {
      const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
        entries: { tag: string }[];
      };
      const [applied] = await platform.database.rows<{ count: number }>(
        sql`SELECT count(*)::int AS count FROM drizzle.__drizzle_migrations`,
      );
      print(
        `database is migrated: ${applied?.count ?? 0} of ${journal.entries.length} migration(s) applied, the ` +
          `last ${journal.entries.at(-1)?.tag ?? 'none'}`,
      );
    });
  },
};

const backup: Command = {
  usage: 'db:backup --out <file.tar.gz>',
  summary: 'Write the embedded database to one file (stop the server first).',
  async run(args) {
    const values = parseOptions(args, { out: { type: 'string' } });
    const problems = new Problems();
    if (!values.out) problems.add('--out is required');
    else if (existsSync(values.out)) problems.add(`--out ${values.out} exists; choose a new file`);
    problems.throwIfAny();
    embeddedDataDir();
    await withPlatform(async (platform) => {
      // Entries relative to the data directory, as any tar expects (PGlite names them from `/`).
      const image = withRelativeNames(new Uint8Array(await (await platform.database.dumpImage!()).arrayBuffer()));
      writeFileSync(values.out!, gzipSync(image), { flag: 'wx', mode: 0o600 });
      print(`backed up the embedded database to ${values.out}`);
    });
  },
};

const restore: Command = {
  usage: 'db:restore --in <file.tar.gz> [--force]',
  summary:
    'Replace the embedded database with a backup (stop the server first); --force when one ' +
    'exists, which is kept beside it.',
  async run(args) {
    const values = parseOptions(args, { in: { type: 'string' }, force: { type: 'boolean', default: false } });
    const problems = new Problems();
    if (!values.in) problems.add('--in is required');
    else if (!existsSync(values.in)) problems.add(`--in ${values.in} does not exist`);
    problems.throwIfAny();
    const dataDir = embeddedDataDir();
    const image = new Blob([gunzipSync(readFileSync(values.in!))]);
    if (existsSync(path.join(dataDir, 'PG_VERSION'))) {
      if (!values.force)
        throw new RefusedError(`${dataDir} holds a database; add --force to replace it (it is kept beside it)`);
      // Refuses while a server holds it; released at once, the restore takes it again.
      lockDataDir(dataDir)();
      const kept = `${dataDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(dataDir, kept);
      print(`kept the database it replaces in ${kept}`);
    }
    await restorePgliteImage(dataDir, image);
    print(`restored the embedded database from ${values.in}`);
  },
};

const reconcile: Command = {
  usage: 'db:reconcile [--check]',
  summary:
    'Compare the figures the database keeps (user and session counts, trade days, revenue, webhook, intel and ' +
    'task counts) with their rows and rebuild those that differ, saying what differed; --check only says, and ' +
    'exits 1 when anything differs.',
  async run(args) {
    const values = parseOptions(args, { check: { type: 'boolean', default: false } });
    const mend = !values.check;
    // Recomputing millions of rows takes longer than a request's statement bound: the longest allowed.
    const differences = await withPlatform(
      (platform) => reconcileFigures(platform.database.db, DERIVED_FIGURES, { mend }),
      { queryTimeoutMs: MAX_QUERY_TIMEOUT_MS },
    );
    let differed = false;
    for (const d of differences) {
      const off = d.missing + d.extra + d.differing;
      differed ||= off > 0;
      print(
        off === 0
          ? `${d.table}: exact`
          : `${d.table}: ${d.missing} row(s) missing, ${d.extra} extra, ${d.differing} ` +
              `differing; ${mend ? 'rebuilt' : 'not mended (--check)'}`,
      );
    }
    return differed && !mend ? 1 : 0;
  },
};

export const DB_COMMANDS: Record<string, Command> = {
  'db:reconcile': reconcile,
  'db:migrate': migrate,
  'db:backup': backup,
  'db:restore': restore,
};
