// Deep pages of a list whose rows the database keeps counted per UTC day of creation (decisions 124,
// 193, 195). A list is newest first; its page `offset` rows deep starts in some day. The kept counts
// say which: summed per day, newest first, the first day whose newer rows are at most `offset`. The
// page then reads from the end of that day and skips only that day's rows before it, instead of
// every row before it: its cost follows the page and the days, not the table.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/** From this many rows on, a page starts at the day its first row falls in rather than skipping rows one by one. */
export const DEEP_OFFSET = 1_000;

/** The kept counts a list's total is read from: their table, count column and filter, and their day column if any. */
export interface KeptCounts {
  table: SQLWrapper;
  n: SQLWrapper;
  where: SQL | undefined;
  /** The UTC day of creation the counts are kept by; without it, a page skips its rows one by one. */
  day?: SQLWrapper;
}

/** A `start` that is no row: the page skips its rows from the newest one. */
export const NO_START = sql`start AS (SELECT NULL::timestamptz AS before, 0::bigint AS newer WHERE false)`;

/** A `finish` that is no row: nothing bounds the page's oldest rows. */
const NO_FINISH = sql`finish AS (SELECT NULL::timestamptz AS after WHERE false)`;

const filtered = (where: SQL | undefined) => (where ? sql`WHERE ${where}` : sql``);

/**
 * The kept counts summed per day, newest first: `days` (`day`, `n`), `walked` (each day with `newer`,
 * how many matching rows are newer than it), `total` and `start`, the day a page `offset` rows deep
 * starts in: the oldest day with at most `offset` rows newer.
 */
function walkedDays(counts: KeptCounts & { day: SQLWrapper }, offset: number): SQL {
  const { table, n, where, day } = counts;
  return sql`days AS (
      SELECT ${day} AS day, sum(${n}) AS n FROM ${table} ${filtered(where)} GROUP BY ${day}
    ),
    walked AS (
      SELECT day, n,
        coalesce(sum(n) OVER (ORDER BY day DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS newer
      FROM days
    ),
    total AS (SELECT coalesce(sum(n), 0)::int AS n FROM days),
    start AS (
      SELECT (day + 1)::timestamp AT TIME ZONE 'UTC' AS before, newer FROM walked
      WHERE newer <= ${offset} ORDER BY day ASC LIMIT 1
    )`;
}

/**
 * The two parts a list statement starts with (after `WITH`): `total` (`n`, how many rows match, from
 * the kept counts) and `start` (`before`, the end of the day a page `offset` rows deep starts in, and
 * `newer`, how many matching rows are newer than that day; no row for a shallow page, or counts not
 * kept by day). A deep page sums the counts per day once, for both.
 */
export function totalAndStart(counts: KeptCounts, offset: number): SQL {
  const { table, n, where, day } = counts;
  if (offset < DEEP_OFFSET || !day) {
    return sql`total AS (SELECT coalesce(sum(${n}), 0)::int AS n FROM ${table} ${filtered(where)}), ${NO_START}`;
  }
  return walkedDays({ ...counts, day }, offset);
}

/** The page's condition: its rows were created before the end of its start day (any row, without a start). */
export const beforeStart = (createdAt: SQLWrapper): SQL =>
  sql`${createdAt} < coalesce((SELECT before FROM start), 'infinity')`;

/** How many rows the page skips: `offset` less the rows newer than its start day. */
export const skippedFromStart = (offset: number): SQL =>
  sql`(${offset}::bigint - coalesce((SELECT newer FROM start), 0))::bigint`;

/**
 * The two parts a filtered list's statement starts with (after `WITH`), bounding its page to the days that
 * hold it on both sides (decision 1460): `total` and `start` as `totalAndStart`'s, for any offset, and
 * `finish` (`after`, the start of the day that holds the page's last row; no row when the matches end
 * first). A filter's matches may be few, or all old (a backlog behind everything newer): the page then
 * reads the days of its own rows, not every newer row of the table in the date order.
 */
export function totalAndDays(counts: KeptCounts, offset: number, limit: number): SQL {
  const { day } = counts;
  if (!day) return sql`${totalAndStart(counts, offset)}, ${NO_FINISH}`;
  return sql`${walkedDays({ ...counts, day }, offset)},
    finish AS (
      SELECT day::timestamp AT TIME ZONE 'UTC' AS after FROM walked
      WHERE newer + n >= ${offset + limit} ORDER BY day DESC LIMIT 1
    )`;
}

/**
 * `totalAndDays`' parts for counts kept by day and finer keys, whose rows for one filter may be as many as
 * its rows (decision 1470): the kept days are walked one at a time, newest first, each found by the
 * counts' key (which must lead with the filter's equalities, then the day), and the walk stops at the
 * day that holds the page's last row. A page near the top reads the counts of its own few days, not of
 * the filter's whole history. `total` comes from `totals`, counts of the same filter without a day. The
 * statement must begin `WITH RECURSIVE`. No `start` when the page is past the end.
 */
export function totalAndNewestDays(
  counts: KeptCounts & { day: SQLWrapper },
  totals: KeptCounts,
  offset: number,
  limit: number,
): SQL {
  const { table, n, where, day } = counts;
  const dayBefore = (before: SQL) => sql`(
      SELECT ${day} AS day, sum(${n})::bigint AS n FROM ${table}
      WHERE ${where ? sql`${where} AND ` : sql``}${day} < ${before}
      GROUP BY ${day} ORDER BY ${day} DESC LIMIT 1
    )`;
  return sql`total AS (SELECT coalesce(sum(${totals.n}), 0)::int AS n FROM ${totals.table} ${filtered(totals.where)}),
    walked(day, newer, through) AS (
      SELECT newest.day, 0::bigint, newest.n FROM ${dayBefore(sql`'infinity'::date`)} AS newest
      UNION ALL
      SELECT older.day, walked.through, walked.through + older.n
      FROM walked CROSS JOIN LATERAL ${dayBefore(sql`walked.day`)} AS older
      WHERE walked.through < ${offset + limit}
    ),
    start AS (
      SELECT (day + 1)::timestamp AT TIME ZONE 'UTC' AS before, newer FROM walked
      WHERE through > ${offset} ORDER BY day DESC LIMIT 1
    ),
    finish AS (
      SELECT day::timestamp AT TIME ZONE 'UTC' AS after FROM walked
      WHERE through >= ${offset + limit} ORDER BY day DESC LIMIT 1
    )`;
}

/** The page's condition: its rows were created within its days (any row, where nothing bounds them). */
export const withinDays = (createdAt: SQLWrapper): SQL =>
  sql`${beforeStart(createdAt)} AND ${createdAt} >= coalesce((SELECT after FROM finish), '-infinity')`;

/** `withinDays`, and nothing past the end: without a `start` there (`totalAndNewestDays`), no row is read. */
export const withinNewestDays = (createdAt: SQLWrapper, offset: number): SQL =>
  sql`${withinDays(createdAt)} AND ${offset}::bigint < (SELECT n FROM total)`;
