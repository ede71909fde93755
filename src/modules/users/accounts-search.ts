// The admin search's two ways to a page (decision 310). Both answer the same page and the same
// total; they differ in what they read. From the matches: every account the trigram indexes find,
// counted and sorted (decision 290), cheap when few match. Along the creation order: the newest
// accounts, each tested against the filter, until the page and the count's bound are found, cheap
// when most accounts match. The planner's estimate of the matches picks the way; the walk gives up
// after as many accounts as the matches are expected to be, so a wrong guess costs at most that.
import { sql, type SQL } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { rowsOf } from '../../platform/db/database.ts';
import { users } from './users.tables.ts';

/**
 * A search's `total` counts its matches up to this many; a search that more accounts match answers
 * this many (decision 310). Counting stops there, so a term every account matches costs this many
 * matches, not the table.
 */
export const SEARCH_TOTAL_BOUND = 1_000;

/** The matches a page needs found: the count's bound passed, and every row up to the page's end. */
export const neededMatches = (offset: number, limit: number): number =>
  Math.max(SEARCH_TOTAL_BOUND + 1, offset + limit);

/** What the planner expects: the accounts a filter matches, and the accounts there are. */
export interface Expected {
  matches: number;
  accounts: number;
}

/**
 * How many of the newest accounts the walk may test, or undefined when it is not worth trying. The
 * walk reads about `needed × accounts / matches` accounts when the matches are spread evenly; the
 * matches' way reads them all. The walk is tried when it is expected to read fewer, and stopped after
 * as many as the matches are expected to be: a walk that finds the matches bunched among older
 * accounts wastes at most what the other way then costs.
 */
export function walkBudget(expected: Expected, needed: number): number | undefined {
  const { matches, accounts } = expected;
  if (!(matches > 0 && accounts > 0)) return undefined;
  return needed * accounts < matches * matches ? Math.ceil(matches) : undefined;
}

const ORDER = sql`created_at DESC NULLS LAST, id DESC NULLS LAST`;

/**
 * The planner's estimates for the filter, from one EXPLAIN with the search's values bound (the app's
 * connections plan statements generically, for any value: decision 192; EXPLAIN plans for these).
 * An Append of two branches: the filtered accounts, then all of them.
 */
export async function expectedMatches(executor: DbExecutor, conditions: SQL): Promise<Expected> {
  const [row] = rowsOf<{ 'QUERY PLAN': unknown }>(
    await executor.execute(sql`EXPLAIN (FORMAT JSON)
      SELECT 1 FROM ${users} WHERE ${conditions} UNION ALL SELECT 1 FROM ${users}`),
  );
  const raw = row?.['QUERY PLAN'];
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan: PlanNode }];
  const [filtered, all] = plan[0].Plan.Plans ?? [];
  return { matches: filtered?.['Plan Rows'] ?? 0, accounts: all?.['Plan Rows'] ?? 0 };
}

interface PlanNode {
  'Plan Rows': number;
  Plans?: PlanNode[];
}

/**
 * From the matches: every match found by the trigram indexes (a BitmapOr) and kept as (id, created)
 * pairs; `total` counts them, `picked` is the page (decision 290).
 */
export function fromMatches(conditions: SQL, offset: number, limit: number): SQL {
  return sql`matched AS MATERIALIZED (
      SELECT ${users.id} AS id, ${users.createdAt} AS created_at FROM ${users} WHERE ${conditions}
    ),
    total AS (SELECT count(*)::int AS n FROM matched),
    picked AS (SELECT id FROM matched ORDER BY ${ORDER} LIMIT ${limit} OFFSET ${offset})`;
}

/**
 * Along the creation order: the first `needed` matches among the newest `budget` accounts (the
 * accounts' index read in its order; the inner LIMIT bounds the accounts tested, the outer the
 * matches kept). `total` counts what was kept; `picked` is the page, and empty unless all `needed`
 * were found: with fewer, the walk proved nothing and the matches' way answers instead. The inner
 * select is named `users` so that the filter's columns are its own.
 */
export function alongCreation(conditions: SQL, offset: number, limit: number, budget: number): SQL {
  const needed = neededMatches(offset, limit);
  return sql`matched AS MATERIALIZED (
      SELECT id, created_at FROM (
        SELECT * FROM ${users} ORDER BY ${ORDER} LIMIT ${budget}
      ) AS users WHERE ${conditions} ORDER BY ${ORDER} LIMIT ${needed}
    ),
    total AS (SELECT count(*)::int AS n FROM matched),
    picked AS (
      SELECT id FROM matched WHERE (SELECT n FROM total) >= ${needed}
      ORDER BY ${ORDER} LIMIT ${limit} OFFSET ${offset}
    )`;
}
