// DATA_DIR holds the embedded database and the generated JWT_SECRET and ENCRYPTION_KEY: the
// owner's only (decision 120). Created 0700 (umask 077); at each start a directory or file that others may read,
// write or enter is tightened (the files a PGlite image copy or an archive brought in keep the modes
// they were made with, 0666 under a umask of 0; PGlite sets some modes itself), and this process's
// umask keeps what PostgreSQL writes later (new WAL segments, relation files) to its owner as well.
// A file PGlite later gives a mode of its own stays behind the 0700 directory.
import { chmodSync, existsSync, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

const OTHERS = 0o077;

/** Every path under `root` (itself included) whose mode lets a group or others in; links are left alone. */
function exposed(root: string): string[] {
  const found: string[] = [];
  const visit = (location: string) => {
    const stat = lstatSync(location);
    if (stat.isSymbolicLink()) return;
    if (stat.mode & OTHERS) found.push(location);
    if (stat.isDirectory()) for (const name of readdirSync(location)) visit(path.join(location, name));
  };
  visit(root);
  return found;
}

/** What this process creates from now on is its owner's only (directories 0700, files 0600). */
export function restrictNewFiles(): void {
  process.umask(OTHERS);
}

/**
 * Makes everything in `dataDir` (itself included) the owner's only, when it exists. Answers the
 * directory's own former mode when that let others in (the one finding worth a warning: below a 0700
 * directory a file's mode opens nothing), else undefined. Throws when a mode cannot be changed (a
 * directory of another user): the start refuses rather than keep secrets readable.
 */
export function keepDataDirPrivate(dataDir: string): number | undefined {
  if (!existsSync(dataDir)) return undefined;
  const former = lstatSync(dataDir).mode & 0o777;
  for (const location of exposed(dataDir)) chmodSync(location, lstatSync(location).mode & 0o7700);
  return former & OTHERS ? former : undefined;
}
