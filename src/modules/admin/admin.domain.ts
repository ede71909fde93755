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

/** The start of the UTC calendar month that `now` falls in. */
export function utcMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
