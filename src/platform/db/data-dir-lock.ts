// One process at a time on an embedded database. PGlite runs PostgreSQL inside the process and keeps
// pages in its memory, so a second process on the same files works on a copy that the first one
// later overwrites: its writes are reported done and then lost. The lock is a file beside the data
// directory holding the owner's pid; a lock whose process is gone (a crash, kill -9) is stale and
// taken over.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the embedded database in ${dataDir} is in use by process ${pid}, likely a running server. ` +
        'PGlite serves one process at a time: stop that process and try again, use the HTTP API, or run on PostgreSQL (DATABASE_URL).',
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ownerOf(lockFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockFile, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock of `dataDir` or throws DataDirInUseError; answers the function that releases it. */
export function lockDataDir(dataDir: string): () => void {
  const lockFile = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockFile, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = ownerOf(lockFile);
      // A live owner, this process included: a second PGlite in one process would lose writes too.
      if (owner !== undefined && alive(owner)) throw new DataDirInUseError(dataDir, owner);
      try {
        unlinkSync(lockFile);
      } catch {
        // Another process took the stale lock over first; the next attempt sees its pid.
      }
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      process.off('exit', release);
      if (ownerOf(lockFile) === process.pid) unlinkSync(lockFile);
    };
    // A process that exits without closing the database leaves no lock behind either.
    process.on('exit', release);
    return release;
  }
  throw new DataDirInUseError(dataDir, ownerOf(lockFile) ?? 0);
}
