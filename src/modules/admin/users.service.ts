// Admin user management: listing, reading, changing and soft-deleting users, their activity, and
// the platform statistics.
import { Decimal } from 'decimal.js';
import { sql, type SQL } from 'drizzle-orm';
import type { AuditRow } from '../../platform/audit.ts';
import { audit, auditFrom } from './admin.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { transactionRetrying } from '../../platform/db/retry.ts';
import { isoText } from '../../platform/db/iso-text.ts';
import { notFound } from '../../platform/http/errors.ts';
import { EMPTY_SUMMARY, type TradingSummary, type TradingSummaryPort } from './trading-summary.port.ts';
import {
  FREE_TIER,
  parseUserId,
  STATUSES,
  userNotFound,
  type ListedAccount,
  type UserRow,
  type UsersModule,
  type UserStatus,
} from '../users/index.ts';
import { utcMonthStart, type AdminActor, actorTypeOf } from './admin.domain.ts';
import type { PlatformStats, UserListQuery, UserPatch } from './users.schemas.ts';

const GRACE_BATCH = 5_000;

/** A user as the admin views see it: the account with its trading summary. */
export type AdminUser = ListedAccount & TradingSummary;

/** One page of users, as the list asked for it. */
export interface AdminUserPage {
  users: AdminUser[];
  total: number;
  page: number;
  limit: number;
}

interface UsersServiceDeps {
  db: Db;
  users: Pick<UsersModule, 'accounts'>;
  /** The audit trail's entries about or by a user, newest first. */
  auditTrail: (userId: string, limit: number) => Promise<AuditRow[]>;
  /** Sums of the payments ledger per currency, as exact decimal strings. */
  revenueByCurrency: () => Promise<Map<string, string>>;
  clock: Clock;
  trading: TradingSummaryPort;
  /** ISO 4217 code, upper case: the only currency `totalRevenue` adds up (decision 015). */
  settlementCurrency: string;
  /** Drops the cached principal of a user whose role or status changed. */
  onUserChanged: (userId: string) => void;
}

export function createUsersService(deps: UsersServiceDeps) {
  const { db, clock, trading, settlementCurrency } = deps;
  const { accounts } = deps.users;

  /** Users with their trading summaries, fetched in one call for the whole batch. */
  async function present(rows: ListedAccount[]): Promise<AdminUser[]> {
    if (rows.length === 0) return [];
    const summaries = await trading.forUsers(rows.map((r) => r.id));
    return rows.map((row) => ({ ...row, ...(summaries.get(row.id) ?? EMPTY_SUMMARY) }));
  }

  async function existingUser(userId: string): Promise<UserRow> {
    const id = parseUserId(userId);
    const row = id ? await accounts.findById(id) : undefined;
    if (!row) throw userNotFound();
    return row;
  }

  return {
    present,

    async listUsers(query: UserListQuery): Promise<AdminUserPage> {
      const { page, limit } = query;
      const offset = (page - 1) * limit;
      const filter = {
        search: query.search?.trim() || undefined,
        role: query.role,
        status: query.status,
        subscriptionTier: query.subscriptionTier,
      };
      // The page and its trading figures in one statement (decision 194).
      const { rows, annexes, total } = await accounts.list(filter, offset, limit, trading.figuresOf);
      const summaries = await trading.summarize(annexes);
      return { users: rows.map((row, i) => ({ ...row, ...summaries[i]! })), total, page, limit };
    },

    async getUserByEmail(email: string): Promise<AdminUser> {
      const row = await accounts.findByEmail(email);
      if (!row) throw notFound(`No user has the e-mail ${email}`);
      const [user] = await present([row]);
      return user!;
    },

    /** Whether the account is the platform owner's (decision 903); for the operator's command line. */
    async isOwner(userId: string): Promise<boolean> {
      return (await existingUser(userId)).owner;
    },

    async getUser(userId: string): Promise<AdminUser> {
      const [user] = await present([await existingUser(userId)]);
      return user!;
    },

    /** `owner` is the operator's alone to set (decision 903): the API's patch has no such field. */
    async updateUser(userId: string, patch: UserPatch & { owner?: boolean }, actor: AdminActor): Promise<AdminUser> {
      const id = parseUserId(userId);
      if (!id) throw userNotFound();
      const now = clock.now();
      const row = await transactionRetrying(db, async (tx) => {
        const { user, changes, twoFactorReset } = await accounts.change(id, patch, actor.id, now, tx);
        if (Object.keys(changes).length === 0) return user;
        if (twoFactorReset) {
          await audit(
            {
              actorId: actor.id,
              actorType: actorTypeOf(actor),
              action: 'admin.user.2fa_reset',
              subjectUserId: id,
              targetType: 'user',
              targetId: id,
              details: twoFactorReset,
              ip: actor.ip,
            },
            now,
            tx,
          );
        }
        await audit(
          {
            actorId: actor.id,
            actorType: actorTypeOf(actor),
            action: 'admin.user.update',
            subjectUserId: id,
            targetType: 'user',
            targetId: id,
            details: { changes },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return user;
      });
      deps.onUserChanged(id);
      const [user] = await present([row]);
      return user!;
    },

    /** Soft delete: the record and its history stay; deleting a deleted user changes nothing. */
    async deleteUser(userId: string, actor: AdminActor): Promise<void> {
      const id = parseUserId(userId);
      if (!id) throw userNotFound();
      const now = clock.now();
      await transactionRetrying(db, async (tx) => {
        const deleted = await accounts.delete(id, actor.id, now, tx);
        if (!deleted) return;
        await audit(
          {
            actorId: actor.id,
            actorType: actorTypeOf(actor),
            action: 'admin.user.delete',
            subjectUserId: id,
            targetType: 'user',
            targetId: id,
            details: deleted,
            ip: actor.ip,
          },
          now,
          tx,
        );
      });
      deps.onUserChanged(id);
    },

    /**
     * For the cleanup-grace-periods job: every user whose payment grace period has ended goes back to
     * the `free` tier (a paid tier only; a free user just has the date cleared) and the grace period
     * is cleared, one audit row per user. Running it again finds nobody.
     */
    async endExpiredGracePeriods(now: Date): Promise<{ downgraded: number; cleared: number }> {
      let downgraded = 0;
      let cleared = 0;
      // Each batch is one statement that ends the grace periods and records them (the cost follows the
      // batches, not the users), in a transaction of its own.
      const recorded = (ended: SQL) =>
        auditFrom(
          ended,
          {
            actorType: 'job',
            action: {
              when: sql`previous_tier <> ${FREE_TIER}`,
              whenTrue: 'billing.grace_period.expired',
              otherwise: 'billing.grace_period.clear',
            },
            subjectUserId: sql`id`,
            targetType: 'user',
            targetId: sql`id::text`,
            details: sql`jsonb_build_object('from', previous_tier, 'to', ${FREE_TIER}::text,
              'grace_period_ended_at', ${isoText(sql`ended_at`)})`,
          },
          now,
        );
      for (;;) {
        const batch = await db.transaction((tx) => accounts.endGracePeriods(now, GRACE_BATCH, recorded, tx));
        downgraded += batch.downgraded;
        cleared += batch.ended;
        if (batch.ended < GRACE_BATCH) return { downgraded, cleared };
      }
    },

    async activity(userId: string, limit: number): Promise<AuditRow[]> {
      const user = await existingUser(userId);
      return deps.auditTrail(user.id, limit);
    },

    /** Users per status, every known status listed (zero included); for the dashboard. */
    async countsByStatus(): Promise<Record<UserStatus, number>> {
      const counts = await accounts.countsByStatus();
      return Object.fromEntries(STATUSES.map((status) => [status, counts.get(status) ?? 0])) as Record<
        UserStatus,
        number
      >;
    },

    async stats(): Promise<PlatformStats> {
      const [counts, revenue] = await Promise.all([
        accounts.counts(utcMonthStart(clock.now())),
        deps.revenueByCurrency(),
      ]);
      // Amounts in different currencies do not add up; the other currencies are listed beside it.
      const byCurrency = Object.fromEntries(
        [...revenue].map(([currency, sum]) => [currency, new Decimal(sum).toNumber()]),
      );
      return {
        totalUsers: counts.total,
        activeUsers: counts.active,
        suspendedUsers: counts.suspended,
        newUsersThisMonth: counts.newThisMonth,
        totalRevenue: byCurrency[settlementCurrency] ?? 0,
        revenueCurrency: settlementCurrency,
        revenueByCurrency: byCurrency,
      };
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
