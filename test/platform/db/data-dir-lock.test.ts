// One process at a time on an embedded database: the lock beside its data directory.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DataDirInUseError, lockDataDir } from '../../../src/platform/db/data-dir-lock.ts';

const dataDir = () => path.join(mkdtempSync(path.join(tmpdir(), 'tp-lock-')), 'pglite');

describe('the data directory lock', () => {
  it('is held by one owner at a time and gone once released', () => {
    const dir = dataDir();
    const release = lockDataDir(dir);
    assert.equal(readFileSync(`${dir}.lock`, 'utf8'), `${process.pid}\n`);
    assert.throws(() => lockDataDir(dir), (error: unknown) => error instanceof DataDirInUseError && error.pid === process.pid);
    release();
    assert.equal(existsSync(`${dir}.lock`), false);
    lockDataDir(dir)();
  });

  it('takes over the lock of a process that is gone, or a lock file that names none', () => {
    const dir = dataDir();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(`${dir}.lock`, `${gone}\n`);
    const release = lockDataDir(dir);
    assert.equal(readFileSync(`${dir}.lock`, 'utf8'), `${process.pid}\n`);
    release();
    writeFileSync(`${dir}.lock`, '');
    lockDataDir(dir)();
  });

  it('says which process holds it and what to do', () => {
    const error = new DataDirInUseError('/srv/data/pglite', 4242);
    assert.match(error.message, /^the embedded database in \/srv\/data\/pglite is in use by process 4242, likely a running server\. .*stop that process/);
  });
});
