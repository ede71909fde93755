// Every query on accounts (the users table). A method that may run inside a caller's transaction
// takes its executor last.
import { and, asc, eq, inArray, ne, or, sql, type SQL } from 'drizzle-orm';
import { dateOrNull, rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import type { Role, Tier, UserStatus } from './users.domain.ts';
import { externalIdentities, userCounts, userDayCounts, userGracePeriods, users } from './users.tables.ts';
import { descending } from '../../platform/db/order.ts';
import { executePrepared } from '../../platform/db/prepared.ts';
import { beforeStart, type KeptCounts, skippedFromStart, totalAndStart } from '../../platform/db/day-walk.ts';
import {
  alongCreation,
  expectedMatches,
  fromMatches,
  neededMatches,
  SEARCH_TOTAL_BOUND,
  walkBudget,
} from './accounts-search.ts';

export type UserRow = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;
export type UserChanges = Partial<Omit<NewUser, 'id' | 'createdAt'>>;

type BillingChanges = { subscriptionTier?: Tier; gracePeriodEndsAt?: Date | null };

export interface UserFilter {
  search?: string;
  role?: Role;
  status?: UserStatus;
  subscriptionTier?: Tier;
}

/** `%`, `_` and `\` in a search term are literal characters, not patterns. */
function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function userConditions(filter: UserFilter): SQL {
  const conditions: SQL[] = [];
  // Deleted users are kept for their history but only listed when asked for by status.
  conditions.push(filter.status ? eq(users.status, filter.status) : ne(users.status, 'deleted'));
  if (filter.role) conditions.push(eq(users.role, filter.role));
  if (filter.subscriptionTier) conditions.push(eq(users.subscriptionTier, filter.subscriptionTier));
  if (filter.search) {
    const pattern = `%${escapeLike(filter.search)}%`;
    // Backslash is ILIKE's default escape. Both expressions are those of the trigram indexes made
    // at start (database.ts), so PostgreSQL can answer the search from them.
    conditions.push(
      or(sql`${users.email} ILIKE ${pattern}`, sql`(${users.firstName} || ' ' || ${users.lastName}) ILIKE ${pattern}`)!,
    );
  }
  // Never empty: the status condition is always there.
  return and(...conditions) ?? sql`true`;
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
 * orders them). The total and a deep page's start come from the kept counts (day-walk.ts).
 */
function keptParts(filter: UserFilter, offset: number, limit: number): { head: SQL; page: SQL } {
  return {
    head: totalAndStart(keptCounts(filter), offset),
    page: sql`SELECT ${listedColumns} FROM ${users}
            WHERE ${userConditions(filter)}
              AND ${beforeStart(users.createdAt)}
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
] as const satisfies readonly (keyof UserRow)[];

/** The account as the admin's lists show it. */
export type ListedAccount = Pick<UserRow, (typeof LISTED)[number]>;

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

export function createAccountsRepository(db: DbExecutor) {
  /**
   * Locks the accounts `ids` and, with `admins`, every active admin's, in one statement in id order:
   * whatever set two changes lock, they take it in the same order, so they wait for each other
   * instead of deadlocking (issue 37). A change that could remove an admin locks the admins too,
   * so two such changes run one after the other and the second sees what the first left
   * (decision 011). FOR NO KEY UPDATE: the rows' keys stay, so a foreign key's check (an audit
   * row naming the acting admin) never waits for it. Answers the accounts of `ids` and the active
   * admins' ids.
   */
  async function lockForChange(
    ids: string[],
    admins: boolean,
    executor: DbExecutor,
  ): Promise<{ rows: UserRow[]; activeAdmins: Set<string> }> {
    const wanted = new Set(ids);
    const activeAdmin = and(eq(users.role, 'admin'), eq(users.status, 'active'));
    const targets = ids.length > 0 ? inArray(users.id, ids) : undefined;
    const where = admins ? (targets ? or(targets, activeAdmin) : activeAdmin) : targets;
    if (!where) return { rows: [], activeAdmins: new Set() };
    const locked = await executor.select().from(users).where(where).orderBy(asc(users.id)).for('no key update');
    return {
      rows: locked.filter((row) => wanted.has(row.id)),
      activeAdmins: new Set(locked.filter((row) => row.role === 'admin' && row.status === 'active').map((r) => r.id)),
    };
  }

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

  /** A search's page from all its matches (accounts-search.ts), its total counted up to the bound. */
  async function searchFromMatches(
    filter: UserFilter,
    offset: number,
    limit: number,
    annex?: AccountAnnex,
  ): Promise<AccountPage> {
    const page = await runList(searchPage(fromMatches(userConditions(filter), offset, limit)), annex);
    return { ...page, total: Math.min(page.total, SEARCH_TOTAL_BOUND) };
  }

  /**
   * A search's page along the creation order, testing at most `budget` of the newest accounts
   * (accounts-search.ts); undefined when they did not hold the matches the page needs.
   */
  async function searchAlongCreation(
    filter: UserFilter,
    offset: number,
    limit: number,
    budget: number,
    annex?: AccountAnnex,
  ): Promise<AccountPage | undefined> {
    const page = await runList(searchPage(alongCreation(userConditions(filter), offset, limit, budget)), annex);
    if (page.total < neededMatches(offset, limit)) return undefined;
    return { ...page, total: Math.min(page.total, SEARCH_TOTAL_BOUND) };
  }

  return {
    async findById(id: string, executor: DbExecutor = db): Promise<UserRow | undefined> {
      const [row] = await executor.select().from(users).where(eq(users.id, id)).limit(1);
      return row;
    },

    /** By the address as stored: lower-cased. */
    async findByEmail(email: string, executor: DbExecutor = db): Promise<UserRow | undefined> {
      const [row] = await executor.select().from(users).where(eq(users.email, email.trim().toLowerCase())).limit(1);
      return row;
    },

    /** The account an external identity provider's user was linked to. */
    async findByExternalIdentity(
      issuer: string,
      subject: string,
      executor: DbExecutor = db,
    ): Promise<UserRow | undefined> {
      const [row] = await executor
        .select({ user: users })
        .from(externalIdentities)
        .innerJoin(users, eq(users.id, externalIdentities.userId))
        .where(and(eq(externalIdentities.issuer, issuer), eq(externalIdentities.subject, subject)))
        .limit(1);
      return row?.user;
    },

    /**
     * Links a provider's user to an account; answers whether the subject is now linked to it (false
     * when the account holds another identity of that provider, or the subject another account).
     */
    async linkExternalIdentity(
      link: { issuer: string; subject: string; userId: string; linkedAt: Date },
      executor: DbExecutor = db,
    ): Promise<boolean> {
      await executor.insert(externalIdentities).values(link).onConflictDoNothing();
      const [row] = await executor
        .select({ userId: externalIdentities.userId })
        .from(externalIdentities)
        .where(and(eq(externalIdentities.issuer, link.issuer), eq(externalIdentities.subject, link.subject)))
        .limit(1);
      return row?.userId === link.userId;
    },

    /** Ordered by e-mail. */
    async findMany(ids: string[], executor: DbExecutor = db): Promise<UserRow[]> {
      if (ids.length === 0) return [];
      return executor.select().from(users).where(inArray(users.id, ids)).orderBy(asc(users.email));
    },

    /** Locks the rows so concurrent changes to one user apply one after the other. */
    async lockForUpdate(ids: string[], executor: DbExecutor): Promise<UserRow[]> {
      if (ids.length === 0) return [];
      return (await lockForChange(ids, false, executor)).rows;
    },

    lockForChange,

    /** Sets the same columns on several accounts in one statement (the kept counts then follow in key order). */
    async updateMany(ids: string[], changes: UserChanges, executor: DbExecutor): Promise<void> {
      if (ids.length === 0) return;
      await executor.update(users).set(changes).where(inArray(users.id, ids));
    },

    /** Undefined when the e-mail is taken. */
    async insert(user: NewUser, executor: DbExecutor = db): Promise<UserRow | undefined> {
      const [row] = await executor.insert(users).values(user).onConflictDoNothing().returning();
      return row;
    },

    /** Undefined when there is no such user. */
    async update(id: string, changes: UserChanges, executor: DbExecutor = db): Promise<UserRow | undefined> {
      const [row] = await executor.update(users).set(changes).where(eq(users.id, id)).returning();
      return row;
    },

    /** What billing may change of an account: its tier and its grace period, nothing else. */
    async setBilling(id: string, changes: BillingChanges, at: Date, executor: DbExecutor = db): Promise<void> {
      await executor
        .update(users)
        .set({ ...changes, updatedAt: at })
        .where(eq(users.id, id));
    },

    /**
     * A page of the listed accounts, newest first, with how many match. Without a search: one
     * statement, whose cost follows the page, not the table (the total and a deep page's start come
     * from the kept counts). A search's total is counted up to SEARCH_TOTAL_BOUND, by whichever of
     * its two ways the planner's estimate makes cheaper (decision 310). The annex is computed for the
     * page's rows only.
     */
    async list(filter: UserFilter, offset: number, limit: number, annex?: AccountAnnex): Promise<AccountPage> {
      if (!filter.search) {
        // Only the default view is prepared: a filter's best plan depends on its value (a rare role
        // is found by its index, a common one by the date order), as a search's on its pattern
        // (decision 192).
        const filtered = Boolean(filter.status || filter.role || filter.subscriptionTier);
        return runList(keptParts(filter, offset, limit), annex, filtered ? undefined : 'accounts_list');
      }
      const expected = await expectedMatches(db, userConditions(filter));
      const budget = walkBudget(expected, neededMatches(offset, limit));
      const walked = budget === undefined ? undefined : await searchAlongCreation(filter, offset, limit, budget, annex);
      return walked ?? searchFromMatches(filter, offset, limit, annex);
    },

    searchFromMatches,
    searchAlongCreation,

    /**
     * Ends up to `limit` payment grace periods that ended by `now`, in one statement: the account goes
     * to `tier` and the date is cleared. Rows another run holds are skipped rather than waited for. The
     * ended ones are found in user_grace_periods; the update itself changes no indexed column of users,
     * so it writes no index entry where the page has room (decision 182). `recorded` is the statement
     * that records them, run within this one over the ended rows (`id`, `previous_tier`, `ended_at`):
     * the rows never travel to the app. Answers how many ended, and how many of those left another tier.
     */
    async endGracePeriods(
      now: Date,
      limit: number,
      tier: Tier,
      recorded: (ended: SQL) => SQL,
      executor: DbExecutor,
    ): Promise<{ ended: number; downgraded: number }> {
      const [row] = rowsOf<{ ended: number; downgraded: number }>(
        await executor.execute(sql`
          WITH ended AS (
            UPDATE ${users} SET grace_period_ends_at = NULL, subscription_tier = ${tier}, updated_at = ${now}
            FROM (
              SELECT id, subscription_tier, grace_period_ends_at FROM ${users}
              WHERE id = ANY (ARRAY(
                  SELECT ${userGracePeriods.userId} FROM ${userGracePeriods} WHERE ${userGracePeriods.endsAt} <= ${now}
                  ORDER BY ${userGracePeriods.endsAt}, ${userGracePeriods.userId} LIMIT ${limit}
                ))
                AND grace_period_ends_at <= ${now}
              FOR UPDATE SKIP LOCKED
            ) AS before
            WHERE ${users.id} = before.id
            RETURNING ${users.id} AS id, before.subscription_tier AS previous_tier, before.grace_period_ends_at AS ended_at
          ), recorded AS (${recorded(sql`ended`)})
          SELECT count(*)::int AS ended, (count(*) FILTER (WHERE previous_tier <> ${tier}))::int AS downgraded
          FROM ended`),
      );
      return { ended: Number(row?.ended ?? 0), downgraded: Number(row?.downgraded ?? 0) };
    },

    /** Users that are not deleted, active, suspended, and created since `monthStart` (a UTC month's first instant). */
    async counts(monthStart: Date) {
      const [row] = await db
        .select({
          total: sql<number>`coalesce(sum(${userDayCounts.n}) FILTER (WHERE ${userDayCounts.status} <> 'deleted'), 0)`,
          active: sql<number>`coalesce(sum(${userDayCounts.n}) FILTER (WHERE ${userDayCounts.status} = 'active'), 0)`,
          suspended: sql<number>`coalesce(sum(${userDayCounts.n}) FILTER (WHERE ${userDayCounts.status} = 'suspended'), 0)`,
          newThisMonth: sql<number>`coalesce(sum(${userDayCounts.n}) FILTER (WHERE ${userDayCounts.status} <> 'deleted'
            AND ${userDayCounts.createdDay} >= ${monthStart.toISOString().slice(0, 10)}), 0)`,
        })
        .from(userDayCounts);
      return {
        total: Number(row?.total ?? 0),
        active: Number(row?.active ?? 0),
        suspended: Number(row?.suspended ?? 0),
        newThisMonth: Number(row?.newThisMonth ?? 0),
      };
    },

    /** Users per stored status, deleted ones included. */
    async countsByStatus(): Promise<Map<UserStatus, number>> {
      const rows = await db
        .select({ status: userDayCounts.status, n: sql<number>`sum(${userDayCounts.n})` })
        .from(userDayCounts)
        .groupBy(userDayCounts.status);
      return new Map(rows.map((row) => [row.status, Number(row.n)]));
    },

    /** Names and addresses of the given users, for showing who is assigned to something. */
    /** Given and family names only: whoever shows them (the tracker's assignees) never sees an address. */
    async names(
      ids: string[],
      executor: DbExecutor = db,
    ): Promise<Map<string, { firstName: string; lastName: string }>> {
      if (ids.length === 0) return new Map();
      const rows = await executor
        .select({ id: users.id, firstName: users.firstName, lastName: users.lastName })
        .from(users)
        .where(inArray(users.id, ids));
      return new Map(rows.map(({ id, ...name }) => [id, name]));
    },
  };
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>;
