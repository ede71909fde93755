// `npm run cli -- db:migrate`, `db:backup` and `db:restore` as operators run them. A file of its own:
// each command starts a process and opens the database, and cli.test.ts holds the other commands.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { tarEntryNames } from '../../../src/platform/db/tar-paths.ts';
import { cli, killStarted, STARTUP_MS, storage, type Env } from '../../helpers/processes.ts';

const POSTGRES = Boolean(process.env.DATABASE_URL);
const timeout = STARTUP_MS;

describe('npm run cli -- db:*', () => {
  after(killStarted);

  it('migrates, and backs up and restores the embedded database (PostgreSQL: pg_dump)', {
    timeout: timeout * 2,
  }, async () => {
    const env: Env = await storage();
    const migrated = await cli(env, 'db:migrate');
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match(migrated.stdout, /^database is migrated: (\d+) of \1 migration\(s\) applied, the last \w+\n$/);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tp-backup-')), 'backup.tar.gz');
    if (POSTGRES) {
      const refused = await cli(env, 'db:backup', '--out', file);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^error: the database is PostgreSQL \(DATABASE_URL\): back it up with pg_dump/);
      return;
    }
    assert.equal(
      (await cli(env, 'users:create', '--email', 'kept@example.com', '--password', 'kept-password-1')).code,
      0,
    );
    const backup = await cli(env, 'db:backup', '--out', file);
    assert.equal(backup.code, 0, backup.stderr);
    assert.ok(existsSync(file));
    // Entries relative to the data directory: `tar -xzf backup.tar.gz -C dir` writes under dir only.
    const entries = tarEntryNames(gunzipSync(readFileSync(file)));
    assert.ok(entries.includes('PG_VERSION'), entries.slice(0, 5).join(', '));
    assert.deepEqual(
      entries.filter((name) => name.startsWith('/') || name.split('/').includes('..')),
      [],
    );
    assert.equal(
      (await cli(env, 'users:create', '--email', 'later@example.com', '--password', 'later-password-1')).code,
      0,
    );

    const refused = await cli(env, 'db:restore', '--in', file);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /holds a database; add --force to replace it/);
    const restored = await cli(env, 'db:restore', '--in', file, '--force');
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(
      restored.stdout,
      /^kept the database it replaces in .*pglite\.before-restore-.*\nrestored the embedded database from /,
    );
    const listed = (await cli(env, 'users:list')).stdout;
    assert.match(listed, /kept@example\.com/);
    assert.doesNotMatch(listed, /later@example\.com/, 'the state of the backup, not after it');
  });
});
