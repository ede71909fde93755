// The schema drizzle-kit reads (drizzle.config.ts): every table the modules declare, and the audit
// trail and the outbox of the platform, each table whose CHECK holds declared values built with every
// module's values (decisions 179 and 230). Runtime code uses the tables' own objects; only those
// CHECKs differ, and the database holds them.
//
// drizzle-kit takes a schema file's exports as its tables, and these are gathered, not written out:
// so the object is the file's CommonJS exports, which is how drizzle-kit loads it. The tables come in
// the order of their files' paths (the modules' folders, then each module's files), as drizzle-kit's
// glob of the files gave them, so the migrations do not move.
import { is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { DECLARED_SETS, MODULE_DECLARATIONS } from './declarations.ts';
import { auditLogTable, guardCounters, outboxTable } from './platform/db/schema.ts';

/** Every table, by a name unique across the modules. */
export function declaredSchema(): Record<string, PgTable> {
  const schema: Record<string, PgTable> = {
    auditLog: auditLogTable(DECLARED_SETS.auditActions),
    outbox: outboxTable(DECLARED_SETS.outboxKinds),
    guardCounters,
  };
  const modules = [...MODULE_DECLARATIONS].sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const module of modules) {
    for (const file of 'tables' in module ? module.tables : []) {
      const exports: Readonly<Record<string, unknown>> = typeof file === 'function' ? file(DECLARED_SETS) : file;
      // A module namespace lists its exports by name; a built set is ordered the same way.
      for (const name of Object.keys(exports).sort()) {
        const table = exports[name];
        if (is(table, PgTable)) schema[`${module.name}:${name}`] = table;
      }
    }
  }
  return schema;
}

// Only drizzle-kit loads this file, as CommonJS; elsewhere `module` is not defined.
if (typeof module !== 'undefined') module.exports = declaredSchema();
