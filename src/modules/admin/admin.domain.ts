// Who acts in the admin operations, what a bulk action did, and the month of the statistics. Pure,
// tested on its own. The rules of an account (self-lockout, the last admin, what a status change
// implies) are the identity module's (users.domain.ts).
import type { BulkActionBody } from './user-actions.schemas.ts';

export interface AdminActor {
  /** The signed-in admin; null for the operator at the command line (`npm run cli`). */
  id: string | null;
  ip?: string;
}

/** The audit trail's actor type of an admin action. */
export const actorTypeOf = (actor: AdminActor): 'admin' | 'system' => (actor.id === null ? 'system' : 'admin');

/** The start of the UTC calendar month that `now` falls in. */
export function utcMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** What a bulk action did: per id, and for an export the stored file. */
export interface BulkOutcome {
  action: BulkActionBody['action'];
  processed: number;
  notFound: string[];
  skipped: { id: string; reason: string }[];
  export?: { id: string; expiresAt: Date };
}
