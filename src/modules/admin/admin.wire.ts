// The admin module's answers on the wire: its services return users with their trading summaries,
// audit rows and limit values, and the routes answer them through these mappers, each typed by its
// response schema.
import type { AuditRow } from '../../platform/audit.ts';
import { iso } from '../../platform/http/schemas.ts';
import { accountWire } from '../users/index.ts';
import { LIMIT_BOUNDS, LIMIT_NAMES, type PlatformLimits } from './platform-limits.schemas.ts';
import type { LimitValues } from './platform-limits.repository.ts';
import type { BulkActionResult, ResetPasswordResult } from './user-actions.schemas.ts';
import type { BulkOutcome } from './admin.domain.ts';
import type { AdminUser, AdminUserPage } from './users.service.ts';
import type { ActivityEntry, User, UserList } from './users.schemas.ts';

/** The account's fields, mapped by the users module that owns them, and the admin's own. */
export function userWire(user: AdminUser): User {
  return {
    ...accountWire(user),
    totalTrades: user.totalTrades,
    accountBalance: user.accountBalance,
    avatar: user.avatar,
  };
}

export function userListWire(page: AdminUserPage): UserList {
  return { users: page.users.map(userWire), total: page.total, page: page.page, limit: page.limit };
}

export function activityWire(row: AuditRow): ActivityEntry {
  return {
    id: row.id,
    action: row.action,
    actor_id: row.actorId,
    actor_type: row.actorType,
    subject_user_id: row.subjectUserId,
    target_type: row.targetType,
    target_id: row.targetId,
    details: row.details,
    ip: row.ip,
    created_at: iso(row.createdAt)!,
  };
}

/** The limits in force with the bounds a change must stay within. */
export function platformLimitsWire(values: LimitValues): PlatformLimits {
  const bounds: Record<string, number[]> = {};
  for (const name of LIMIT_NAMES) bounds[name] = [...LIMIT_BOUNDS[name]];
  return { ...values, bounds };
}

export function bulkActionWire(outcome: BulkOutcome): BulkActionResult {
  const { action, processed, notFound, skipped } = outcome;
  const done = { success: true, action, processed, notFound, skipped };
  if (!outcome.export) return done;
  const { id, expiresAt } = outcome.export;
  return { ...done, exportId: id, exportUrl: `/api/admin/users/exports/${id}`, expiresAt: iso(expiresAt)! };
}

export function resetPasswordWire(emailSent: boolean): ResetPasswordResult {
  return { success: true, emailSent };
}
