// A module reaches another only through its index.ts (STYLE: modules talk through what their index
// returns and exports), so a module's other files can change without breaking its neighbours. The one
// exception: a module's tables may name the users table, which their foreign keys reference.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const MODULES = path.resolve(import.meta.dirname, '../../src/modules');
const USERS_TABLES = path.join(MODULES, 'users', 'users.tables.ts');

interface CrossImport {
  file: string;
  target: string;
}

/** Every import (or export … from) of a file of another module, in every source file of the modules. */
function crossModuleImports(): CrossImport[] {
  const found: CrossImport[] = [];
  for (const entry of readdirSync(MODULES, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts')) continue;
    const file = path.join(MODULES, entry);
    const own = entry.split(path.sep)[0];
    const source = readFileSync(file, 'utf8');
    for (const [, specifier] of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/g)) {
      const target = path.resolve(path.dirname(file), specifier!);
      const relative = path.relative(MODULES, target);
      if (relative.startsWith('..')) continue;
      if (relative.split(path.sep)[0] !== own) found.push({ file: path.relative(MODULES, file), target });
    }
  }
  return found;
}

describe('module boundaries', () => {
  it("imports another module's files only through its index.ts (tables may name the users table)", () => {
    const imports = crossModuleImports();
    // The scan sees cross-module imports at all: every module but users imports the users module.
    assert.ok(imports.length > 20, `cross-module imports found: ${imports.length}`);
    const allowed = ({ file, target }: CrossImport) =>
      path.basename(target) === 'index.ts' || (file.endsWith('.tables.ts') && target === USERS_TABLES);
    assert.deepEqual(
      imports.filter((i) => !allowed(i)).map(({ file, target }) => `${file} -> ${path.relative(MODULES, target)}`),
      [],
    );
    // The exception is used, and only by tables.
    assert.ok(imports.some((i) => i.target === USERS_TABLES && i.file.endsWith('.tables.ts')));
  });
});
