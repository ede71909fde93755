// Every query on accounts (the users table); the admin's list and search are in
// accounts-list.repository.ts. A method that may run inside a caller's transaction takes its executor
// last.
import { and, asc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import type { Tier, UserStatus } from './users.domain.ts';
import { externalIdentities, userDayCounts, userGracePeriods, users } from './users.tables.ts';
import { createAccountListRepository } from './accounts-list.repository.ts';

export type { AccountAnnex, AccountPage, ListedAccount, UserFilter } from './accounts-list.repository.ts';

export type UserRow = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;
export type UserChanges = Partial<Omit<NewUser, 'id' | 'createdAt'>>;

type BillingChanges = { subscriptionTier?: Tier; gracePeriodEndsAt?: Date | null };

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

  return {
    ...createAccountListRepository(db),

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

    /** Whether any account is the platform owner's (decision 903). */
    async hasOwner(executor: DbExecutor = db): Promise<boolean> {
      const [row] = await executor.select({ id: users.id }).from(users).where(eq(users.owner, true)).limit(1);
      return row !== undefined;
    },

    /**
     * The account a provider's user is, read only: the one its (issuer, subject) is linked to, else the
     * one with the address the provider verified, unless that account is linked to another user of the
     * provider (decision 009's rule, without making the first link: the auth hook, decision 960).
     */
    async findForExternalIdentity(
      identity: { issuer: string; subject: string; email: string | undefined; emailVerified: boolean },
      executor: DbExecutor = db,
    ): Promise<UserRow | undefined> {
      const [linked] = await executor
        .select({ user: users })
        .from(externalIdentities)
        .innerJoin(users, eq(users.id, externalIdentities.userId))
        .where(and(eq(externalIdentities.issuer, identity.issuer), eq(externalIdentities.subject, identity.subject)))
        .limit(1);
      if (linked) return linked.user;
      if (!identity.email || !identity.emailVerified) return undefined;
      const [row] = await executor
        .select()
        .from(users)
        .where(
          and(
            eq(users.email, identity.email.trim().toLowerCase()),
            sql`NOT EXISTS (SELECT 1 FROM ${externalIdentities} WHERE ${externalIdentities.userId} = ${users.id}
              AND ${externalIdentities.issuer} = ${identity.issuer})`,
          ),
        )
        .limit(1);
      return row;
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
