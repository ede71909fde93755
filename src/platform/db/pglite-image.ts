// The migrated PGlite data directory that a first start (and every test file) copies instead of
// running initdb and the migrations: made once by `npm install` (scripts/build.mjs), kept beside the
// other build caches in node_modules/.cache, and named by everything that shapes it, so that a new
// migration or PGlite version makes a new one and never copies a stale one. A plain directory, so
// that a first start copies files (~0.1 s) and opens them as any existing data directory; loading a
// tarball instead would pass 40 MB through PGlite's memory, which keeps it (decision 016).
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../project-root.ts';
import { MIGRATIONS_FOLDER, PGLITE_SETTINGS, openDatabase } from './database.ts';

const CACHE_DIR = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'trading-platform');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)]))
    .sort();
}

/** Where the image of the current migrations, PGlite version and settings is (or would be). */
export function pgliteImageDir(): string {
  const hash = createHash('sha256');
  hash.update(readFileSync(path.join(PROJECT_ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json')));
  hash.update(PGLITE_SETTINGS.join(' '));
  for (const file of files(MIGRATIONS_FOLDER))
    hash.update(path.relative(MIGRATIONS_FOLDER, file)).update(readFileSync(file));
  return path.join(CACHE_DIR, `pglite-${hash.digest('hex').slice(0, 16)}`);
}

const isCluster = (dir: string) => existsSync(path.join(dir, 'PG_VERSION'));

/** Whether the image of the current migrations has been made. */
export const hasPgliteImage = (): boolean => isCluster(pgliteImageDir());

/** Puts `work` in place as `target` unless another process got there first; `work` is gone either way. */
function settle(work: string, target: string): void {
  try {
    renameSync(work, target);
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    if (!isCluster(target)) throw error;
  }
}

/**
 * Copies the image into `dataDir` when that holds no cluster yet and an image exists; answers
 * whether it did. Copied beside the target and renamed, so that a start cut short, or two starting
 * at once, never leave half a cluster behind.
 */
export function seedFromPgliteImage(dataDir: string): boolean {
  if (isCluster(dataDir)) return false;
  const image = pgliteImageDir();
  if (!isCluster(image)) return false;
  const work = `${dataDir}.${process.pid}.partial`;
  cpSync(image, work, { recursive: true });
  if (existsSync(dataDir) && readdirSync(dataDir).length === 0) rmSync(dataDir, { recursive: true });
  settle(work, dataDir);
  return true;
}

/** Makes the image: a cluster with every migration applied, written beside its place and renamed into it. */
export async function writePgliteImage(): Promise<string> {
  const target = pgliteImageDir();
  const work = `${target}.${process.pid}.partial`;
  rmSync(work, { recursive: true, force: true });
  const database = await openDatabase({ dataDir: work });
  await database.close();
  if (isCluster(target)) rmSync(work, { recursive: true, force: true });
  else settle(work, target);
  // Images of earlier migrations or PGlite versions, and what was made of them (the test runs' tar), are
  // of no further use.
  for (const name of readdirSync(CACHE_DIR)) {
    if (name.startsWith('pglite-') && !name.includes('.partial') && !name.startsWith(path.basename(target))) {
      rmSync(path.join(CACHE_DIR, name), { recursive: true, force: true });
    }
  }
  return target;
}
