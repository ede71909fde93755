// The account as the API shows it, in this order: auth answers it as is (registration,
// GET /api/auth/me), and the admin's user (`users.schemas.ts` in admin) holds the same fields, in its
// own order and words, with the user's trading figures after them.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { ROLES, STATUSES, TIERS } from './users.domain.ts';

export const Account = Type.Object({
  id: Uuid('User id.'),
  email: Type.String({ description: 'E-mail address.' }),
  firstName: Type.String({ description: 'Given name.' }),
  lastName: Type.String({ description: 'Family name.' }),
  role: StringEnum(ROLES, { description: '`user` or `admin`.' }),
  subscriptionTier: StringEnum(TIERS, { description: 'Subscription tier: `free`, `basic`, `pro` or `enterprise`.' }),
  status: StringEnum(STATUSES, { description: '`active`, `suspended` or `deleted`.' }),
  emailVerified: Type.Boolean({ description: 'Whether the address was verified.' }),
  twoFactorEnabled: Type.Boolean({ description: 'Whether two-factor authentication is on.' }),
  createdAt: DateTime('When the account was created.'),
  lastLogin: Nullable(DateTime('Last successful login.')),
});
export type Account = Static<typeof Account>;
