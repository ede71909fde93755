// Rules shared by every admin operation that changes a user: id parsing, the self-protection rule,
// and what a status change implies. Pure, tested on its own.
import { conflict } from '../../platform/http/errors.ts';
import type { UserStatus } from './users.schemas.ts';

export interface AdminActor {
  id: string;
  ip?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The canonical (lower-case) id, or undefined when the value is not a UUID and so matches nobody. */
export function parseUserId(value: string): string | undefined {
  return UUID.test(value) ? value.toLowerCase() : undefined;
}

/** Statuses that end every session of the user at once. */
export function revokesSessions(status: string): boolean {
  return status === 'suspended' || status === 'deleted';
}

/** Columns a status change sets: deletion is stamped, any other status clears the stamp. */
export function statusColumns(status: UserStatus, now: Date): { status: UserStatus; deletedAt: Date | null } {
  return { status, deletedAt: status === 'deleted' ? now : null };
}

/**
 * An admin may not lock themselves out: demoting, suspending or deleting one's own account is
 * refused, which also guarantees that at least one admin always remains.
 */
export function assertNotSelfLockout(actor: AdminActor, targetId: string, change: { role?: string; status?: string }): void {
  if (actor.id !== targetId) return;
  if (change.role !== undefined && change.role !== 'admin') {
    throw conflict('You cannot remove the admin role from your own account');
  }
  if (change.status !== undefined && change.status !== 'active') {
    throw conflict(`You cannot ${change.status === 'deleted' ? 'delete' : 'suspend'} your own account`);
  }
}

/** The start of the UTC calendar month that `now` falls in. */
export function utcMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
