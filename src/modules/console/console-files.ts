// The built console (dist/console/, written by scripts/build.mjs) as the routes serve it: the shell
// read once, each hashed asset read on its first request and kept, since its name changes with it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { contentTypeOf } from './console.domain.ts';

export interface ConsoleFile {
  body: Buffer;
  type: string;
}

export interface ConsoleFiles {
  /** index.html, or undefined when the console has not been built. */
  shell(): Promise<Buffer | undefined>;
  /** A file under assets/, or undefined when there is none of that name and type. */
  asset(name: string): Promise<ConsoleFile | undefined>;
}

const ASSET_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.[a-z0-9]+$/;

export function createConsoleFiles(dir: string): ConsoleFiles {
  let shell: Buffer | undefined;
  const assets = new Map<string, ConsoleFile>();
  const read = (file: string) =>
    readFile(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'EISDIR') return undefined;
      throw error;
    });
  return {
    async shell() {
      shell ??= await read(path.join(dir, 'index.html'));
      return shell;
    },
    async asset(name) {
      const type = contentTypeOf(name);
      if (!type || !ASSET_NAME.test(name) || name.length > 200) return undefined;
      const known = assets.get(name);
      if (known) return known;
      const body = await read(path.join(dir, 'assets', name));
      if (!body) return undefined;
      const file = { body, type };
      assets.set(name, file);
      return file;
    },
  };
}
