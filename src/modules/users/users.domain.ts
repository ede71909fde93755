// The closed sets of an account, declared once: the API's schemas, the services and the database's
// CHECK constraints all take them from here. Pure.

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A user id as stored (lower-case UUID), or undefined for anything that cannot be one. */
export function parseUserId(value: string): string | undefined {
  return UUID.test(value) ? value.toLowerCase() : undefined;
}
