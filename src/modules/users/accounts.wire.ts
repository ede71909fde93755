// The account on the wire, mapped once: auth answers it as the account, and the admin's `userWire`
// adds the user's trading figures to it (decision 181: the mapper is typed by its response schema).
import { iso } from '../../platform/http/schemas.ts';
import type { ListedAccount } from './accounts.repository.ts';
import type { Account } from './accounts.schemas.ts';

/** The account as the API shows it. */
export function accountWire(user: ListedAccount): Account {
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    role: user.role,
    subscriptionTier: user.subscriptionTier,
    status: user.status,
    emailVerified: user.emailVerified,
    twoFactorEnabled: user.twoFactorEnabled,
    createdAt: iso(user.createdAt)!,
    lastLogin: iso(user.lastLogin),
  };
}
