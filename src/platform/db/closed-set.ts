// A value of a closed set (a status, a role, a priority) written into a statement's text as a literal, so
// that the statement is planned for it. The connections plan every statement once for any value
// (decision 401); under that one plan a rare value can walk the date order through every row when the
// statistics say it is common, or never saw it (decision 1360). Only the set's own values are written:
// anything else is a TypeError, so nothing a request sends reaches the text.
import { sql, type SQL } from 'drizzle-orm';

export function literalOf<T extends string>(value: T, set: readonly T[]): SQL {
  if (!set.includes(value)) throw new TypeError(`not a listed value: ${value}`);
  return sql.raw(`'${value}'`);
}
