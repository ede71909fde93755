// The admin's list of accounts: a page, newest first, with how many match (decisions 193, 194,
// 290, 310 and 355). Without a search the total and a deep page's start come from the kept counts;
// a search takes one of the ways of accounts-search.ts.
import { and, eq, ne, sql, type SQL } from 'drizzle-orm';
import { dateOrNull, rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { literalOf, PLANNED_FOR_VALUES } from '../../platform/db/literals.ts';
import { descending } from '../../platform/db/order.ts';
import { executePrepared } from '../../platform/db/prepared.ts';
import {
  beforeStart,
  type KeptCounts,
  skippedFromStart,
  totalAndDays,
  totalAndStart,
  withinDays,
} from '../../platform/db/day-walk.ts';
import { ROLES, type Role, STATUSES, type Tier, TIERS, type UserStatus } from './users.domain.ts';
import { userCounts, userDayCounts, users } from './users.tables.ts';
import {
  afterFirstSpace,
  alongCreation,
  byNameWords,
  expectedMatches,
  fromMatches,
  fromNameWords,
  hasTrigram,
  neededMatches,
  SEARCH_TOTAL_BOUND,
  searchCondition,
  walkBudget,
} from './accounts-search.ts';

export interface UserFilter {
  search?: string;
  role?: Role;
  status?: UserStatus;
  subscriptionTier?: Tier;
}

/** A value of one of the filter's closed sets, bound as a parameter or written into the text. */
type FilterValue = <T extends string>(value: T, set: readonly T[]) => SQL | T;

const bound: FilterValue = (value) => value;

/** A value of one of the filter's closed sets as an SQL literal, so that the statement is planned for it (decision 1360). */
const written: FilterValue = literalOf;

/** The filter's conditions but its search. */
function filterConditions(filter: UserFilter, value: FilterValue = bound): SQL {
  // Deleted users are kept for their history but only listed when asked for by status.
  const status = filter.status
    ? eq(users.status, value(filter.status, STATUSES))
    : ne(users.status, value('deleted', STATUSES));
  return and(
    status,
    filter.role ? eq(users.role, value(filter.role, ROLES)) : undefined,
    filter.subscriptionTier ? eq(users.subscriptionTier, value(filter.subscriptionTier, TIERS)) : undefined,
  )!;
}

/**
 * The accounts a search with a status, role or tier walks through (their index's date order, decision
 * 401); none without one: a search without a filter walks every account.
 */
function walkedWithin(filter: UserFilter): SQL | undefined {
  return filter.status || filter.role || filter.subscriptionTier ? filterConditions(filter) : undefined;
}

/**
 * The counts the database keeps that a filter without a search can be read from, and the filter over
 * them. Without a role or tier, the counts by status and day: a tenth of the rows (decision 193).
 */
function keptCounts(filter: UserFilter): KeptCounts {
  const status = (counts: typeof userCounts | typeof userDayCounts) =>
    filter.status ? eq(counts.status, filter.status) : ne(counts.status, 'deleted');
  if (!filter.role && !filter.subscriptionTier) {
    return { table: userDayCounts, n: userDayCounts.n, day: userDayCounts.createdDay, where: status(userDayCounts) };
  }
  return {
    table: userCounts,
    n: userCounts.n,
    day: userCounts.createdDay,
    where: and(
      status(userCounts),
      filter.role ? eq(userCounts.role, filter.role) : undefined,
      filter.subscriptionTier ? eq(userCounts.subscriptionTier, filter.subscriptionTier) : undefined,
    ),
  };
}

/**
 * The list statement's parts before its select when there is no search: `WITH` parts that answer the
 * `total` and the `page` (the listed columns of the page's accounts, in any order; the statement
 * orders them). The total and a deep page's start come from the kept counts (day-walk.ts). The page
 * is planned for the filter's values, written into its text: under the one plan for any value, the
 * planner may walk the date index for a rare role, every account for a page of 11 (decision 1360).
 * A filtered page reads only the days that hold its rows, by the same counts (decision 1460): a tier has
 * no index (decision 182), and a status whose accounts are all old, such as a purge's deleted ones, is
 * walked in the date order behind every newer account.
 */
function keptParts(filter: UserFilter, offset: number, limit: number): { head: SQL; page: SQL } {
  const bounded = Boolean(filter.status || filter.role || filter.subscriptionTier);
  return {
    head: bounded ? totalAndDays(keptCounts(filter), offset, limit) : totalAndStart(keptCounts(filter), offset),
    page: sql`SELECT ${listedColumns} FROM ${users}
            WHERE ${filterConditions(filter, written)}
              AND ${bounded ? withinDays(users.createdAt) : beforeStart(users.createdAt)}
            ORDER BY ${descending(users.createdAt)}, ${descending(users.id)}
            LIMIT ${limit} OFFSET ${skippedFromStart(offset)}`,
  };
}

/** A search's page: its accounts, by the ids its `WITH` parts picked (accounts-search.ts). */
const searchPage = (head: SQL) => ({
  head,
  page: sql`SELECT ${listedColumns} FROM ${users} WHERE ${users.id} IN (SELECT id FROM picked)`,
});

/** The columns the admin's lists show of an account: no password hash, second factor or bookkeeping dates. */
const LISTED = [
  'id',
  'email',
  'firstName',
  'lastName',
  'role',
  'subscriptionTier',
  'status',
  'emailVerified',
  'twoFactorEnabled',
  'createdAt',
  'lastLogin',
  'avatar',
] as const satisfies readonly (keyof typeof users.$inferSelect)[];

/** The account as the admin's lists show it. */
export type ListedAccount = Pick<typeof users.$inferSelect, (typeof LISTED)[number]>;

/** The listed columns under their field names. */
const listedColumns = sql.join(
  LISTED.map((field) => sql`${users[field]} AS ${sql.identifier(field)}`),
  sql`, `,
);

type ListedRaw = Omit<ListedAccount, 'id' | 'createdAt' | 'lastLogin'> & {
  total: number;
  annex?: unknown;
  /** Null on the one row of a page past the end, which carries only the total. */
  id: string | null;
  createdAt: Date | string;
  lastLogin: Date | string | null;
};

/**
 * A column another module adds to each listed account, read in the list's own statement: an SQL value
 * of the account's id column (decision 194).
 */
export type AccountAnnex = (accountId: SQL) => SQL;

/** A page of listed accounts: `annexes[i]` is the annex's value for `rows[i]` (none without an annex). */
export interface AccountPage {
  rows: ListedAccount[];
  annexes: unknown[];
  total: number;
}

/** A filter with a search: what the search's ways answer. */
export type SearchFilter = UserFilter & { search: string };

/** The filter's conditions and its search's. */
const searchConditions = (filter: SearchFilter): SQL => and(filterConditions(filter), searchCondition(filter.search))!;

/** The capped total of a search's page (decision 310). */
const bounded = (page: AccountPage): AccountPage => ({ ...page, total: Math.min(page.total, SEARCH_TOTAL_BOUND) });

export function createAccountListRepository(db: DbExecutor) {
  /** Runs a list statement of `parts`, as the prepared statement `prepared` if named (decision 192). */
  async function runList(
    parts: { head: SQL; page: SQL },
    annex: AccountAnnex | undefined,
    prepared?: string,
  ): Promise<AccountPage> {
    const annexed = annex ? sql`, ${annex(sql`page.id`)} AS annex` : sql``;
    const statement = sql`
        WITH ${parts.head}
        SELECT total.n AS total, page.*${annexed} FROM total LEFT JOIN LATERAL (${parts.page}) AS page ON true
        ORDER BY page."createdAt" DESC NULLS LAST, page.id DESC NULLS LAST`;
    const raw = rowsOf<ListedRaw>(
      prepared ? await executePrepared(db, prepared, statement) : await db.execute(statement),
    );
    const rows: ListedAccount[] = [];
    const annexes: unknown[] = [];
    for (const { total: _, annex: value, id, createdAt, lastLogin, ...row } of raw) {
      if (id === null) continue;
      rows.push({ ...row, id, createdAt: new Date(createdAt), lastLogin: dateOrNull(lastLogin) });
      if (annex) annexes.push(value);
    }
    return { rows, annexes, total: Number(raw[0]?.total ?? 0) };
  }

  /** A search's page from all its matches (accounts-search.ts). */
  async function searchFromMatches(filter: SearchFilter, offset: number, limit: number, annex?: AccountAnnex) {
    return bounded(await runList(searchPage(fromMatches(searchConditions(filter), offset, limit)), annex));
  }

  /**
   * A search's page by its name's words (accounts-search.ts); undefined for a term with no word
   * after a space, which that way cannot narrow.
   */
  async function searchByNameWords(
    filter: SearchFilter,
    offset: number,
    limit: number,
    annex?: AccountAnnex,
  ): Promise<AccountPage | undefined> {
    const lastNameStart = afterFirstSpace(filter.search);
    if (lastNameStart === undefined) return undefined;
    const head = fromNameWords(filterConditions(filter), filter.search, lastNameStart, offset, limit);
    return bounded(await runList(searchPage(head), annex));
  }

  /**
   * A search's page along the creation order, testing at most `budget` of the newest accounts, or
   * every account without one (accounts-search.ts); undefined when a budget's accounts did not hold
   * the matches the page needs.
   */
  async function searchAlongCreation(
    filter: SearchFilter,
    offset: number,
    limit: number,
    budget: number | undefined,
    annex?: AccountAnnex,
  ): Promise<AccountPage | undefined> {
    const head = alongCreation(searchConditions(filter), offset, limit, budget, walkedWithin(filter));
    const page = await runList(searchPage(head), annex);
    if (budget !== undefined && page.total < neededMatches(offset, limit)) return undefined;
    return bounded(page);
  }

  /**
   * A search's page by the way its term and the planner's estimate make cheapest (decisions 310 and
   * 355): a term without a trigram walks the whole creation order if it must; otherwise the walk is
   * tried when most accounts are expected to match, and the matches are read by the name's words
   * when few last names start as the term's second word, else by the trigram indexes. With a status,
   * role or tier, the walk goes through those accounts only. `forValues` is awaited before the ways
   * whose best plan depends on the values (decision 401); the walk's is the same for any value.
   */
  async function search(
    filter: SearchFilter,
    offset: number,
    limit: number,
    annex?: AccountAnnex,
    forValues?: () => Promise<unknown>,
  ) {
    // Without a budget the walk always answers: it holds the bound's matches or every match.
    if (!hasTrigram(filter.search)) return (await searchAlongCreation(filter, offset, limit, undefined, annex))!;
    const lastNameStart = afterFirstSpace(filter.search);
    const expected = await expectedMatches(db, searchConditions(filter), lastNameStart, walkedWithin(filter));
    const budget = walkBudget(expected, neededMatches(offset, limit));
    const walked = budget === undefined ? undefined : await searchAlongCreation(filter, offset, limit, budget, annex);
    if (walked) return walked;
    await forValues?.();
    const byWords = byNameWords(expected) ? await searchByNameWords(filter, offset, limit, annex) : undefined;
    return byWords ?? searchFromMatches(filter, offset, limit, annex);
  }

  return {
    /**
     * A page of the listed accounts, newest first, with how many match. Without a search: one
     * statement, whose cost follows the page, not the table (the total and a deep page's start come
     * from the kept counts). A search's total is counted up to SEARCH_TOTAL_BOUND, by whichever of
     * its ways is expected to be cheapest (decisions 310 and 355). The annex is computed for the
     * page's rows only.
     */
    async list(filter: UserFilter, offset: number, limit: number, annex?: AccountAnnex): Promise<AccountPage> {
      const filtered = Boolean(filter.status || filter.role || filter.subscriptionTier);
      if (filter.search) {
        const searched = { ...filter, search: filter.search };
        if (!filtered) return search(searched, offset, limit, annex);
        // The app's statements are planned once for any value, unnamed ones too (database.ts). A
        // search with a filter reads its matches under a plan made for its values: one plan cannot
        // know whether the filter (a rare role: its index) or the term (a rare name: the trigram
        // indexes) is the narrower, and the wrong one cost 300 ms a page on the big database
        // (decision 401). Its walk keeps the one plan, the filter's index in date order: a plan made
        // for its values read every account of the filter and sorted them (decision 410).
        return db.transaction(async (tx) =>
          createAccountListRepository(tx).search(searched, offset, limit, annex, () => tx.execute(PLANNED_FOR_VALUES)),
        );
      }
      // The page is planned for the filter's values (keptParts; decision 1360, which amends 401's one
      // plan for any value). Only the default view is named (decision 192).
      return runList(keptParts(filter, offset, limit), annex, filtered ? undefined : 'accounts_list');
    },

    search,
    searchFromMatches,
    searchByNameWords,
    searchAlongCreation,
  };
}
