// A timestamp as the wire writes it, formatted by the database: for answers the database writes as
// JSON text itself (decision 184).
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/**
 * `Date#toISOString()`'s text for a `timestamptz`: UTC, milliseconds (truncated, as a `Date` made from
 * the stored microseconds holds them), `Z`.
 */
export const isoText = (column: SQLWrapper): SQL =>
  sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
