// Statements planned for the values they run with. The connections plan every statement once for any value
// (decision 401); under that one plan a rare value can walk the date order through every row when the
// statistics say it is common, or never saw it (decisions 1360, 1400 and 1410). A value that cannot carry
// anything else (a closed set's own values, ids) is written into the text as a literal; anything else is a
// TypeError, so nothing a request sends reaches the text. Any other value stays bound, and its statements
// run in a transaction whose plans are made for their values.
import { sql, type SQL } from 'drizzle-orm';
import type { DbExecutor } from './database.ts';
import { isUuid } from '../ids.ts';

/** Plans the rest of the current transaction's statements for their bound values. */
export const PLANNED_FOR_VALUES = sql`SET LOCAL plan_cache_mode = force_custom_plan`;

/** `work` in a transaction of its own whose statements are planned for their bound values. */
export function plannedForValues<T>(db: DbExecutor, work: (tx: DbExecutor) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(PLANNED_FOR_VALUES);
    return work(tx);
  });
}

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
