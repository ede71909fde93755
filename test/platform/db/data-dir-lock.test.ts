// One process at a time on an embedded database: the lock beside its data directory.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
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
    assert.equal(readFileSync(`${dir}.lock`, 'utf8').split('\n')[0], String(process.pid));
    assert.throws(
      () => lockDataDir(dir),
      (error: unknown) => error instanceof DataDirInUseError && error.pid === process.pid,
    );
    release();
    assert.equal(existsSync(`${dir}.lock`), false);
    lockDataDir(dir)();
  });

  it('takes over the lock of a process that is gone, or a lock file that names none', () => {
    const dir = dataDir();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    writeFileSync(`${dir}.lock`, `${gone}\n`);
    const release = lockDataDir(dir);
    assert.equal(readFileSync(`${dir}.lock`, 'utf8').split('\n')[0], String(process.pid));
    release();
    writeFileSync(`${dir}.lock`, '');
    lockDataDir(dir)();
  });

  it("takes over a lock naming this very process that it did not take (a container's pid 1 after a hard kill)", () => {
    const dir = dataDir();
    writeFileSync(`${dir}.lock`, `${process.pid}\n`);
    const release = lockDataDir(dir);
    assert.throws(() => lockDataDir(dir), DataDirInUseError, 'taken by this process now, it is held');
    release();
  });

  it('tells a live owner from a process that got its pid later, by the start time', {
    skip: !existsSync('/proc/self/stat') && 'needs /proc to read start times',
  }, async (t) => {
    const dir = dataDir();
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    t.after(() => other.kill('SIGKILL'));
    const stat = readFileSync(`/proc/${other.pid}/stat`, 'utf8');
    const started = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    writeFileSync(`${dir}.lock`, `${other.pid}\n${started}\n`);
    assert.throws(
      () => lockDataDir(dir),
      (error: unknown) => error instanceof DataDirInUseError && error.pid === other.pid,
    );
    writeFileSync(`${dir}.lock`, `${other.pid}\n${Number(started) - 1}\n`);
    lockDataDir(dir)();
  });

  it('says which process holds it and what to do', () => {
    const error = new DataDirInUseError('/srv/data/pglite', 4242);
    assert.match(
      error.message,
      /^the embedded database in \/srv\/data\/pglite is in use by process 4242, likely a running server\. .*stop that process/,
    );
  });
});
