// The admin search's ways to a page (decisions 310 and 355). Every way answers the same page and the
// same total; they differ in what they read. From the matches: every account the trigram indexes
// find, counted and sorted (decision 290), cheap when few match. By the name's words: for a term with
// a space, the accounts whose last name starts with what follows it, cheap when few do. Along the
// creation order: the newest accounts, each tested against the filter, until the page and the count's
// bound are found, cheap when most accounts match, and the only way for a term without a trigram.
// The planner's estimate picks among the first three; the walk gives up after as many accounts as the
// matches are expected to be, so a wrong guess costs at most that.
import { and, or, sql, type SQL } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { rowsOf } from '../../platform/db/database.ts';
import { users } from './users.tables.ts';

/**
 * A search's `total` counts its matches up to this many; a search that more accounts match answers
 * this many (decision 310). Counting stops there, so a term every account matches costs this many
 * matches, not the table.
 */
export const SEARCH_TOTAL_BOUND = 1_000;

/**
 * The most accounts the name's words may put forward before the trigram indexes are read instead:
 * each costs a read and a test (about 3.4 µs of the server's CPU on the bench's big database), and
 * the trigram indexes cost 5–10 ms for a term whose trigrams most names share (decision 355).
 */
export const NAME_WORDS_CANDIDATES = 2_000;

/** The matches a page needs found: the count's bound passed, and every row up to the page's end. */
export const neededMatches = (offset: number, limit: number): number =>
  Math.max(SEARCH_TOTAL_BOUND + 1, offset + limit);

/** `%`, `_` and `\` in a search term are literal characters, not patterns. */
function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const emailMatches = (pattern: string): SQL => sql`${users.email} ILIKE ${pattern}`;

/**
 * Whether the account matches `term`: a case-insensitive substring of its e-mail or of "first last"
 * (decision 010). Backslash is ILIKE's default escape. Both expressions are those of the trigram
 * indexes made at start (database.ts), so PostgreSQL can answer the search from them.
 */
export function searchCondition(term: string): SQL {
  const pattern = `%${escapeLike(term)}%`;
  return or(emailMatches(pattern), sql`(${users.firstName} || ' ' || ${users.lastName}) ILIKE ${pattern}`)!;
}

/**
 * Whether pg_trgm finds a trigram in the term: three letters or digits in a row. Without one its
 * indexes cannot narrow the search and read every entry they hold (on 200,000 accounts, both
 * indexes whole and every account tested again), so such a term walks the creation order instead.
 */
export const hasTrigram = (term: string): boolean => /[\p{L}\p{N}]{3}/u.test(term);

/**
 * What follows the term's first space, when something does. A name whose first and last names hold
 * no space has exactly one space, between them, so a term with a space matches it only if what
 * precedes the term's first space ends the first name and what follows starts the last name
 * (lower() maps each character alone and a space to itself): those accounts are found by the last
 * names' prefix index. Names with a space within a part are few and have an index of their own.
 */
export function afterFirstSpace(term: string): string | undefined {
  const at = term.indexOf(' ');
  return at < 0 || at === term.length - 1 ? undefined : term.slice(at + 1);
}

/** The accounts whose last name starts with `start`, case-insensitively: users_last_name_prefix_idx. */
const lastNameStarts = (start: string): SQL => sql`lower(${users.lastName}) ^@ lower(${start})`;

/** The predicate of users_spaced_name_idx, word for word: the planner must see that it implies it. */
const SPACED_NAME = sql`(${users.firstName} LIKE '% %' OR ${users.lastName} LIKE '% %')`;

/** What the planner expects: the accounts a filter matches, the accounts there are, and the name's words' candidates. */
export interface Expected {
  matches: number;
  accounts: number;
  /** The accounts whose last name starts with what follows the term's first space; absent without one. */
  nameWordCandidates?: number;
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

/** Whether the name's words are the cheaper way to the matches: few last names start as the term's second word. */
export const byNameWords = (expected: Expected): boolean =>
  expected.nameWordCandidates !== undefined && expected.nameWordCandidates <= NAME_WORDS_CANDIDATES;

const ORDER = sql`created_at DESC NULLS LAST, id DESC NULLS LAST`;

/**
 * The planner's estimates for the filter, from one EXPLAIN with the search's values bound (the app's
 * connections plan statements generically, for any value: decision 192; EXPLAIN plans for these).
 * An Append of the filtered accounts, the accounts the walk would go through (all of them, or those
 * `within` a status, role or tier), then (given `lastNameStart`) the name's words' candidates.
 */
export async function expectedMatches(
  executor: DbExecutor,
  conditions: SQL,
  lastNameStart?: string,
  within?: SQL,
): Promise<Expected> {
  const words =
    lastNameStart === undefined ? sql`` : sql` UNION ALL SELECT 1 FROM ${users} WHERE ${lastNameStarts(lastNameStart)}`;
  const walked = within === undefined ? sql`` : sql` WHERE ${within}`;
  const [row] = rowsOf<{ 'QUERY PLAN': unknown }>(
    await executor.execute(sql`EXPLAIN (FORMAT JSON)
      SELECT 1 FROM ${users} WHERE ${conditions} UNION ALL SELECT 1 FROM ${users}${walked}${words}`),
  );
  const raw = row?.['QUERY PLAN'];
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan: PlanNode }];
  const [filtered, all, candidates] = plan[0].Plan.Plans ?? [];
  return {
    matches: filtered?.['Plan Rows'] ?? 0,
    accounts: all?.['Plan Rows'] ?? 0,
    ...(lastNameStart === undefined ? {} : { nameWordCandidates: candidates?.['Plan Rows'] ?? Infinity }),
  };
}

interface PlanNode {
  'Plan Rows': number;
  Plans?: PlanNode[];
}

/** The parts every way ends with: `total` counts `matched`, `picked` is the page's ids. */
function countedAndPicked(offset: number, limit: number, proven: SQL = sql`true`): SQL {
  return sql`total AS (SELECT count(*)::int AS n FROM matched),
    picked AS (SELECT id FROM matched WHERE ${proven} ORDER BY ${ORDER} LIMIT ${limit} OFFSET ${offset})`;
}

/**
 * From the matches: every match found by the trigram indexes (a BitmapOr) and kept as (id, created)
 * pairs; `total` counts them, `picked` is the page (decision 290).
 */
export function fromMatches(conditions: SQL, offset: number, limit: number): SQL {
  return sql`matched AS MATERIALIZED (
      SELECT ${users.id} AS id, ${users.createdAt} AS created_at FROM ${users} WHERE ${conditions}
    ),
    ${countedAndPicked(offset, limit)}`;
}

/**
 * By the name's words (`afterFirstSpace` says why it is exact): the candidates are the accounts the
 * e-mail's trigram index matches, those whose last name starts with `lastNameStart`, and those with a
 * space within a name, each read by its index (a BitmapOr); the matches are those the search's
 * condition then holds. The candidates are kept apart so that the planner cannot read the name's
 * trigram index for the condition (the read this way avoids). The inner select is named `users` so
 * that the condition's columns are its own.
 */
export function fromNameWords(filters: SQL, term: string, lastNameStart: string, offset: number, limit: number): SQL {
  const put = and(filters, or(emailMatches(`%${escapeLike(term)}%`), lastNameStarts(lastNameStart), SPACED_NAME));
  return sql`candidates AS MATERIALIZED (
      SELECT id, created_at, email, first_name, last_name FROM ${users} WHERE ${put}
    ),
    matched AS MATERIALIZED (
      SELECT id, created_at FROM candidates AS users WHERE ${searchCondition(term)}
    ),
    ${countedAndPicked(offset, limit)}`;
}

/**
 * Along the creation order: the first `needed` matches among the newest `budget` accounts (the
 * accounts' index read in its order; the inner LIMIT bounds the accounts tested, the outer the
 * matches kept). `total` counts what was kept; `picked` is the page, and empty unless all `needed`
 * were found: with fewer, the walk proved nothing and the matches' way answers instead. Without a
 * budget (LIMIT NULL is no limit: the statement and its plan stay those of a budget) the walk may
 * test every account: holding fewer than `needed` then means it holds every match, and its page
 * stands. Given `within` (a status, role or tier), the walk goes through those accounts only, along
 * their own index's date order (decision 401), and the budget counts them. The inner select is named
 * `users` so that the filter's columns are its own.
 */
export function alongCreation(conditions: SQL, offset: number, limit: number, budget?: number, within?: SQL): SQL {
  const needed = neededMatches(offset, limit);
  const proven = budget === undefined ? sql`true` : sql`(SELECT n FROM total) >= ${needed}`;
  const walked = within === undefined ? sql`` : sql` WHERE ${within}`;
  return sql`matched AS MATERIALIZED (
      SELECT id, created_at FROM (
        SELECT * FROM ${users}${walked} ORDER BY ${ORDER} LIMIT ${budget ?? null}
      ) AS users WHERE ${conditions} ORDER BY ${ORDER} LIMIT ${needed}
    ),
    ${countedAndPicked(offset, limit, proven)}`;
}
