// Queries over users, the audit trail, the payments ledger and exports for the admin module.
import { and, asc, count, eq, gte, inArray, isNull, lt, lte, ne, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { DbExecutor } from '../../platform/db/database.ts';
import { auditLog, passwordResetTokens, paymentsLedger, users } from '../../platform/db/schema.ts';
import { adminExports } from './admin.tables.ts';

export type UserRow = typeof users.$inferSelect;
export type AuditRow = typeof auditLog.$inferSelect;
export type ExportRow = typeof adminExports.$inferSelect;

export interface UserFilter {
  search?: string;
  role?: string;
  status?: string;
  subscriptionTier?: string;
}

/** `%`, `_` and `\` in a search term are literal characters, not patterns. */
export function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

// Drizzle writes its indexes' DESC as DESC NULLS LAST; an ORDER BY must say the same for
// PostgreSQL to read the order from the index instead of sorting (the columns are NOT NULL anyway).
const descNullsLast = (column: AnyPgColumn) => sql`${column} DESC NULLS LAST`;

function userConditions(filter: UserFilter): SQL | undefined {
  const conditions: SQL[] = [];
  // Deleted users are kept for their history but only listed when asked for by status.
  conditions.push(filter.status ? eq(users.status, filter.status) : ne(users.status, 'deleted'));
  if (filter.role) conditions.push(eq(users.role, filter.role));
  if (filter.subscriptionTier) conditions.push(eq(users.subscriptionTier, filter.subscriptionTier));
  if (filter.search) {
    const pattern = `%${escapeLike(filter.search)}%`;
    // Backslash is ILIKE's default escape. Both expressions are those of the trigram indexes in
    // schema.ts, so PostgreSQL can answer the search from them.
    conditions.push(
      or(
        sql`${users.email} ILIKE ${pattern}`,
        sql`(${users.firstName} || ' ' || ${users.lastName}) ILIKE ${pattern}`,
      )!,
    );
  }
  return and(...conditions);
}

export function createUsersRepository(db: DbExecutor) {
  return {
    async listUsers(filter: UserFilter, offset: number, limit: number): Promise<{ rows: UserRow[]; total: number }> {
      const where = userConditions(filter);
      const [rows, [counted]] = await Promise.all([
        db
          .select()
          .from(users)
          .where(where)
          .orderBy(descNullsLast(users.createdAt), descNullsLast(users.id))
          .limit(limit)
          .offset(offset),
        db.select({ n: count() }).from(users).where(where),
      ]);
      return { rows, total: Number(counted?.n ?? 0) };
    },

    async findUser(id: string, executor: DbExecutor = db): Promise<UserRow | undefined> {
      const [row] = await executor.select().from(users).where(eq(users.id, id)).limit(1);
      return row;
    },

    /** Locks the rows so concurrent admin changes to one user apply one after the other. */
    async findUsersForUpdate(ids: string[], executor: DbExecutor): Promise<UserRow[]> {
      if (ids.length === 0) return [];
      return executor.select().from(users).where(inArray(users.id, ids)).orderBy(asc(users.id)).for('update');
    },

    async findUsers(ids: string[], executor: DbExecutor = db): Promise<UserRow[]> {
      if (ids.length === 0) return [];
      return executor.select().from(users).where(inArray(users.id, ids)).orderBy(asc(users.email));
    },

    async updateUser(id: string, changes: Partial<typeof users.$inferInsert>, executor: DbExecutor): Promise<UserRow> {
      const [row] = await executor.update(users).set(changes).where(eq(users.id, id)).returning();
      return row!;
    },

    /**
     * Up to `limit` users whose payment grace period ended by `now`, locked; rows another run holds
     * are skipped rather than waited for.
     */
    async lockExpiredGracePeriods(now: Date, limit: number, executor: DbExecutor): Promise<UserRow[]> {
      return executor
        .select()
        .from(users)
        .where(lte(users.gracePeriodEndsAt, now))
        .orderBy(asc(users.gracePeriodEndsAt), asc(users.id))
        .limit(limit)
        .for('update', { skipLocked: true });
    },

    /** Makes every reset link the user was sent unusable. */
    async expireResetTokens(userId: string, at: Date, executor: DbExecutor): Promise<void> {
      await executor
        .update(passwordResetTokens)
        .set({ usedAt: at })
        .where(and(eq(passwordResetTokens.userId, userId), isNull(passwordResetTokens.usedAt)));
    },

    async userCounts(monthStart: Date) {
      const [row] = await db
        .select({
          total: sql<number>`count(*) FILTER (WHERE ${users.status} <> 'deleted')`,
          active: sql<number>`count(*) FILTER (WHERE ${users.status} = 'active')`,
          suspended: sql<number>`count(*) FILTER (WHERE ${users.status} = 'suspended')`,
          newThisMonth: sql<number>`count(*) FILTER (WHERE ${users.status} <> 'deleted' AND ${users.createdAt} >= ${monthStart})`,
        })
        .from(users);
      return {
        total: Number(row?.total ?? 0),
        active: Number(row?.active ?? 0),
        suspended: Number(row?.suspended ?? 0),
        newThisMonth: Number(row?.newThisMonth ?? 0),
      };
    },

    /** Users per stored status (deleted ones included), for the dashboard. */
    async countsByStatus(): Promise<Map<string, number>> {
      const rows = await db.select({ status: users.status, n: count() }).from(users).groupBy(users.status);
      return new Map(rows.map((row) => [row.status, Number(row.n)]));
    },

    /** Exact sums in SQL (numeric) per upper-cased currency, as decimal strings; empty for an empty ledger. */
    async revenueByCurrency(): Promise<Map<string, string>> {
      const currency = sql<string>`upper(${paymentsLedger.currency})`;
      const rows = await db
        .select({ currency, sum: sql<string>`SUM(${paymentsLedger.amount})::text` })
        .from(paymentsLedger)
        .groupBy(currency)
        .orderBy(currency);
      return new Map(rows.map((row) => [row.currency, row.sum]));
    },

    /**
     * Entries where the user is the subject or the actor, newest first. Two index-ordered halves
     * (subject index, actor index) merged, so a rare user in a large log stays cheap.
     */
    async activity(userId: string, limit: number): Promise<AuditRow[]> {
      const bySubject = db
        .select()
        .from(auditLog)
        .where(eq(auditLog.subjectUserId, userId))
        .orderBy(descNullsLast(auditLog.createdAt), descNullsLast(auditLog.id))
        .limit(limit);
      const byActor = db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.actorId, userId), or(isNull(auditLog.subjectUserId), ne(auditLog.subjectUserId, userId))))
        .orderBy(descNullsLast(auditLog.createdAt), descNullsLast(auditLog.id))
        .limit(limit);
      const [a, b] = await Promise.all([bySubject, byActor]);
      return [...a, ...b]
        .sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (x.id < y.id ? 1 : x.id > y.id ? -1 : 0))
        .slice(0, limit);
    },

    async insertExport(row: typeof adminExports.$inferInsert, executor: DbExecutor): Promise<ExportRow> {
      const [inserted] = await executor.insert(adminExports).values(row).returning();
      return inserted!;
    },

    async purgeExpiredExports(now: Date, executor: DbExecutor): Promise<void> {
      await executor.delete(adminExports).where(lt(adminExports.expiresAt, now));
    },

    async findLiveExport(id: string, now: Date): Promise<ExportRow | undefined> {
      const [row] = await db
        .select()
        .from(adminExports)
        .where(and(eq(adminExports.id, id), gte(adminExports.expiresAt, now)))
        .limit(1);
      return row;
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
