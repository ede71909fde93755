// Prints the routines files the second migration is written from (scripts/db-generate.sh), one path a
// line: the platform's, then each module's as its declaration lists them, in the order of the modules'
// folders (the order the migration has always had).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { MODULE_DECLARATIONS } from '../src/declarations.ts';

const platform = readdirSync('src/platform/db')
  .filter((name) => name.endsWith('.routines.sql'))
  .sort()
  .map((name) => path.posix.join('src/platform/db', name));
const modules = [...MODULE_DECLARATIONS]
  .sort((a, b) => (a.name < b.name ? -1 : 1))
  .flatMap((module) =>
    ('routines' in module ? module.routines : []).map((file) => path.posix.join('src/modules', module.name, file)),
  );
process.stdout.write([...platform, ...modules].map((file) => `${file}\n`).join(''));
