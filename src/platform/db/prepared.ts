// Named (prepared) statements for the hottest reads (decision 192). An unnamed statement is parsed
// and planned on every run; planning the admin list's statements cost PostgreSQL as much as running
// them. A named one is parsed once per connection and planned once, for any values (the app's
// connections force generic plans: database.ts, unnamed statements included, decision 401). Naming
// saves the parsing and planning; the plan is the same one for any value either way. PGlite ignores
// the name: it runs the statement as before.
import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db, DbExecutor } from './database.ts';

const dialect = new PgDialect();

/**
 * The statement names handed out, by label and statement text. A name is its label and a digest of the text:
 * node-postgres refuses one name for two texts, and a statement's text changes with its shape (a
 * filter given or not). The shapes are few; past this many, statements run unnamed rather than
 * grow every connection's set of prepared statements without bound.
 */
const names = new Map<string, Map<string, string>>();
let named = 0;
const MAX_NAMES = 256;

function nameOf(label: string, text: string): string | undefined {
  // By label, then by the text itself: a text built once keeps its hash, where a key joining the two
  // would be a new string to hash on every run (decision 380).
  let byText = names.get(label);
  const known = byText?.get(text);
  if (known !== undefined || named >= MAX_NAMES) return known;
  const name = `${label}_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  if (!byText) names.set(label, (byText = new Map()));
  byText.set(text, name);
  named += 1;
  return name;
}

/**
 * Runs `query` as the prepared statement `label` (a letter, digits and underscores), on whichever
 * connection the executor uses; answers what `execute` answers.
 */
export function executePrepared(executor: DbExecutor, label: string, query: SQL): Promise<unknown> {
  const built = dialect.sqlToQuery(query);
  const { session } = (executor as Db)._;
  return session.prepareQuery(built, undefined, nameOf(label, built.sql), false).execute();
}

/**
 * Runs a statement whose text was built once (its values as `$1`, `$2`, … in `params`, driver values)
 * as the prepared statement `label`: for a hot statement, where building the text from a Drizzle `SQL`
 * on every call costs more CPU than the rest of its run in the app (decision 375).
 */
export function executeText(executor: DbExecutor, label: string, text: string, params: unknown[]): Promise<unknown> {
  const { session } = (executor as Db)._;
  return session.prepareQuery({ sql: text, params }, undefined, nameOf(label, text), false).execute();
}

/**
 * A PostgreSQL array literal of the values, each quoted, as one parameter (cast it: `${arrayParam(x)}::text[]`):
 * a statement taking its rows as arrays (`unnest`) has one text whatever their number, so it can be named.
 */
export function arrayParam(values: readonly (string | boolean | null)[]): string {
  const element = (v: string | boolean | null) =>
    v === null ? 'NULL' : typeof v === 'boolean' ? String(v) : `"${v.replace(/[\\"]/g, '\\$&')}"`;
  return `{${values.map(element).join(',')}}`;
}
