// The closed sets of an account, declared once: the API's schemas, the services and the database's
// CHECK constraints all take them from here; and the rules of a change of role or status. Pure.
import { conflict } from '../../platform/http/errors.ts';
import { isUuid } from '../../platform/ids.ts';

export const ROLES = ['user', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const STATUSES = ['active', 'suspended', 'deleted'] as const;
export type UserStatus = (typeof STATUSES)[number];

export const TIERS = ['free', 'basic', 'pro', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

/** Suspension and deletion end every session at once. */
export const revokesSessions = (status: UserStatus): boolean => status !== 'active';

/** The columns a status change sets: a deletion is stamped, a return to active clears the stamp. */
export function statusColumns(status: UserStatus, now: Date): { status: UserStatus; deletedAt: Date | null } {
  return { status, deletedAt: status === 'deleted' ? now : null };
}

/** A user id as stored (lower-case UUID), or undefined for anything that cannot be one. */
export function parseUserId(value: string): string | undefined {
  return isUuid(value) ? value.toLowerCase() : undefined;
}

/**
 * Whoever acts may not lock themselves out: demoting, suspending or deleting one's own account is
 * refused, which also guarantees that at least one admin always remains.
 */
export function assertNotSelfLockout(
  actorId: string | null,
  targetId: string,
  change: { role?: string; status?: string },
): void {
  if (actorId !== targetId) return;
  if (change.role !== undefined && change.role !== 'admin') {
    throw conflict('You cannot remove the admin role from your own account');
  }
  if (change.status !== undefined && change.status !== 'active') {
    throw conflict(`You cannot ${change.status === 'deleted' ? 'delete' : 'suspend'} your own account`);
  }
}

/** Whether the change takes an active admin away: a new role other than admin, or a status other than active. */
function removesAdmin(user: { role: string; status: string }, change: { role?: string; status?: string }): boolean {
  const wasActiveAdmin = user.role === 'admin' && user.status === 'active';
  const role = change.role ?? user.role;
  const status = change.status ?? user.status;
  return wasActiveAdmin && (role !== 'admin' || status !== 'active');
}

/**
 * Applies the change to the set of active admins (the active admins lockForChange locked in the same
 * transaction); false, and nothing applied, when it would leave none.
 */
export function keepsAnAdmin(
  activeAdmins: Set<string>,
  user: { id: string; role: string; status: string },
  change: { role?: string; status?: string },
): boolean {
  if (!removesAdmin(user, change)) return true;
  if (activeAdmins.size <= 1 && activeAdmins.has(user.id)) return false;
  activeAdmins.delete(user.id);
  return true;
}

export const lastAdminMessage = (email: string) => `${email} is the last active admin; promote another account first`;

/**
 * Whether the change is another admin's to the owner's account (decision 903): only the owner and the
 * operator's command line (`by` null) change it.
 */
export const guardedOwner = (by: string | null, target: { id: string; owner: boolean }): boolean =>
  target.owner && by !== null && by !== target.id;

/** The refusal of another admin's change to the owner's account (409). */
export const ownerMessage = (email: string, what: string) =>
  `${email} is the platform owner's account; other admins cannot ${what} it (the owner or the operator's ` +
  'command line can)';
