// Values written into a statement's text as literals, so that the statement is planned for them. The
// connections plan every statement once for any value (decision 401); under that one plan a rare value can
// walk the date order through every row when the statistics say it is common, or never saw it (decisions
// 1360, 1400 and 1410). Only values that cannot carry anything else are written: a closed set's own values
// and ids; anything else is a TypeError, so nothing a request sends reaches the text.
import { sql, type SQL } from 'drizzle-orm';
import { isUuid } from '../ids.ts';

/** A value of a closed set (a status, a role, a priority). */
export function literalOf<T extends string>(value: T, set: readonly T[]): SQL {
  if (!set.includes(value)) throw new TypeError(`not a listed value: ${value}`);
  return sql.raw(`'${value}'`);
}

/** A uuid, such as an id the database answered. */
export function uuidLiteral(id: string): SQL {
  if (!isUuid(id)) throw new TypeError(`not a uuid: ${id}`);
  return sql.raw(`'${id}'::uuid`);
}
