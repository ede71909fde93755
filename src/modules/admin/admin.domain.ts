// Rules of the admin operations that change a user: who acts, and the self-protection rule. Pure,
// tested on its own. What a status change implies is the identity module's (users.domain.ts).
import { conflict } from '../../platform/http/errors.ts';

export interface AdminActor {
  /** The signed-in admin; null for the operator at the command line (`npm run cli`). */
  id: string | null;
  ip?: string;
}

/** The audit trail's actor type of an admin action. */
export const actorTypeOf = (actor: AdminActor): 'admin' | 'system' => (actor.id === null ? 'system' : 'admin');

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

/** Whether the change takes an active admin away: a new role other than admin, or a status other than active. */
export function removesAdmin(user: { role: string; status: string }, change: { role?: string; status?: string }): boolean {
  const wasActiveAdmin = user.role === 'admin' && user.status === 'active';
  const role = change.role ?? user.role;
  const status = change.status ?? user.status;
  return wasActiveAdmin && (role !== 'admin' || status !== 'active');
}

/**
 * Applies the change to the set of active admins (the ids lockActiveAdmins locked in the same
 * transaction); false, and nothing applied, when it would leave none.
 */
export function keepsAnAdmin(activeAdmins: Set<string>, user: { id: string; role: string; status: string }, change: { role?: string; status?: string }): boolean {
  if (!removesAdmin(user, change)) return true;
  if (activeAdmins.size <= 1 && activeAdmins.has(user.id)) return false;
  activeAdmins.delete(user.id);
  return true;
}

export const lastAdminMessage = (email: string) => `${email} is the last active admin; promote another account first`;

/** The start of the UTC calendar month that `now` falls in. */
export function utcMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
