// A module reaches another only through its index.ts (STYLE: modules talk through what their index
// returns and exports), so a module's other files can change without breaking its neighbours. The one
// exception: a module's tables may name the users table, which their foreign keys reference. And a
// module reaches a venue only through the venue door, the platform's egress (decision 250).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '../../src');
const MODULES = path.join(SRC, 'modules');
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

/** Every source file under `dir`, with its text, comments removed (a comment may name what code may not call). */
function sources(dir: string): { file: string; code: string }[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((entry) => entry.endsWith('.ts') && !entry.endsWith('.test.ts'))
    .map((entry) => ({
      file: path.relative(SRC, path.join(dir, entry)),
      code: readFileSync(path.join(dir, entry), 'utf8').replace(/\/\*[\s\S]*?\*\/|(?<![:'"`])\/\/.*$/gm, ''),
    }));
}

const EGRESS = path.join('platform', 'venue-budget', 'egress.ts');

/**
 * Modules that may use the platform's raw fetch, because what they call is not a venue: AI providers
 * (provider-keys), the issue tracker, chat and users' webhooks (notifications), the identity
 * provider's keys (users). A venue is reached through `platform.egress` only (decision 250).
 */
const RAW_FETCH_MODULES = ['provider-keys', 'tracker', 'notifications', 'users'];

describe('the venue door', () => {
  const all = sources(SRC);

  it('builds a guarded fetch in one place, the egress', () => {
    const building = all.filter(({ code }) => /(?<!function )\bguardedFetch\(/.test(code)).map(({ file }) => file);
    assert.deepEqual(building, [EGRESS]);
  });

  it("has no module call the global fetch, nor read the platform's raw fetch unless it calls no venue", () => {
    const found: string[] = [];
    for (const { file, code } of all.filter(({ file }) => file.startsWith(`modules${path.sep}`))) {
      const module = file.split(path.sep)[1]!;
      // A call of the global fetch; `x.fetch(` is a port's, and a method named fetch is declared at a line's start.
      if (/(?<![\w.$]|^\s*|async\s+)fetch\s*\(/m.test(code) || /\bglobalThis\.fetch\b/.test(code))
        found.push(`${file}: global fetch`);
      if (/\bplatform\.fetch\b/.test(code) && !RAW_FETCH_MODULES.includes(module))
        found.push(`${file}: platform.fetch`);
    }
    assert.deepEqual(found, []);
  });

  it("wires ccxt's own fetch hook through the egress", () => {
    const hooks = all.flatMap(({ file, code }) =>
      code
        .split('\n')
        .filter((line) => /\bfetchImplementation\s*=[^=]/.test(line))
        .map((line) => ({ file, line: line.trim() })),
    );
    assert.ok(hooks.length > 0, 'ccxt instances are given their fetch somewhere');
    assert.deepEqual(
      hooks.filter(({ line }) => !/\begress\.venue\(/.test(line)),
      [],
    );
  });

  it('is the way both venue modules reach their venues', () => {
    for (const module of ['exchange', 'market'])
      assert.ok(
        sources(path.join(MODULES, module)).some(({ code }) => /\bplatform\.egress\b/.test(code)),
        `${module} reaches its venues through platform.egress`,
      );
  });
});
