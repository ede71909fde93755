// One process at a time on an embedded database. PGlite runs PostgreSQL inside the process and keeps
// pages in its memory, so a second process on the same files works on a copy that the first one
// later overwrites: its writes are reported done and then lost. The lock is a file beside the data
// directory holding the owner's pid and, where the system tells it, the process's start time; a lock
// whose process is gone (a crash, kill -9) is stale and taken over. A pid alone does not say the
// owner is gone once the pid is reused: a server run as a container's first process is pid 1 again
// after a hard kill and would find itself named. As PostgreSQL's postmaster.pid check does, a lock
// naming this very process that this process did not take is stale, and so is one whose pid now
// belongs to a process started at another time (decision 120).
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the embedded database in ${dataDir} is in use by process ${pid}, likely a running ` +
        'server. PGlite serves one process at a time: stop that process and try again, use the HTTP API, ' +
        'or run on PostgreSQL (DATABASE_URL).',
    );
  }
}

interface Owner {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux /proc); absent where unknown. */
  started?: string;
}

/** The lock files this process holds. */
const held = new Set<string>();

/** Field 22 of /proc/<pid>/stat, read after the command name (which may hold spaces and parentheses). */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function alive(owner: Owner, lockFile: string): boolean {
  if (owner.pid === process.pid) return held.has(lockFile);
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = startTimeOf(owner.pid);
  return owner.started === undefined || started === undefined || started === owner.started;
}

function ownerOf(lockFile: string): Owner | undefined {
  try {
    const [pidLine, started] = readFileSync(lockFile, 'utf8').split('\n');
    const pid = Number.parseInt(pidLine!, 10);
    return Number.isSafeInteger(pid) && pid > 0 ? { pid, ...(started ? { started } : {}) } : undefined;
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
      if (owner !== undefined && alive(owner, lockFile)) throw new DataDirInUseError(dataDir, owner.pid);
      try {
        unlinkSync(lockFile);
      } catch {
        // Another process took the stale lock over first; the next attempt sees its pid.
      }
      continue;
    }
    writeSync(fd, `${process.pid}\n${startTimeOf(process.pid) ?? ''}\n`);
    closeSync(fd);
    held.add(lockFile);
    const release = () => {
      if (!held.delete(lockFile)) return;
      process.off('exit', release);
      if (ownerOf(lockFile)?.pid === process.pid) unlinkSync(lockFile);
    };
    // A process that exits without closing the database leaves no lock behind either.
    process.on('exit', release);
    return release;
  }
  throw new DataDirInUseError(dataDir, ownerOf(lockFile)?.pid ?? 0);
}
