// Request and response schemas of the admin user operations. Field names are the contract's
// (camelCase for users, snake_case for activity rows).
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, PageNumber, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { ROLES, SEARCH_TOTAL_BOUND, STATUSES, TIERS } from '../users/index.ts';

// Grouped by hand: toLocaleString would load ICU's locale data at start, about 4 MiB of the idle
// process (decision 391).
const BOUND = String(SEARCH_TOTAL_BOUND).replace(/\B(?=(\d{3})+$)/g, ',');

export const BULK_ACTIONS = ['activate', 'suspend', 'delete', 'export'] as const;

/** Upper bound of `userIds` in one bulk action. */
export const MAX_BULK_IDS = 1000;

const RoleField = (description: string) => StringEnum(ROLES, { description });
const StatusField = (description: string) => StringEnum(STATUSES, { description });
const TierField = (description: string) => StringEnum(TIERS, { description });

export const User = Type.Object(
  {
    id: Uuid('User id.'),
    email: Type.String({ description: 'E-mail address (lower-case).' }),
    firstName: Type.String({ description: 'Given name; empty string when unknown.' }),
    lastName: Type.String({ description: 'Family name; empty string when unknown.' }),
    role: RoleField('`user` or `admin`.'),
    subscriptionTier: TierField('`free`, `basic`, `pro` or `enterprise`.'),
    status: StatusField('`active`, `suspended` or `deleted` (soft-deleted, kept with its history).'),
    createdAt: DateTime('When the account was created.'),
    lastLogin: Nullable(DateTime('Last successful login; null if the user never signed in.')),
    emailVerified: Type.Boolean({ description: 'Whether the address was verified.' }),
    twoFactorEnabled: Type.Boolean({ description: 'Whether two-factor authentication is on.' }),
    totalTrades: Type.Number({
      description: "Number of the user's trades recorded from their exchanges; 0 when none.",
    }),
    accountBalance: Type.Number({
      description: "The user's total balance as last synced from their exchanges; 0 when none.",
    }),
    avatar: Nullable(Type.String({ description: 'Avatar URL; null when the user has none.' })),
  },
  { description: 'A user as the admin sees it.' },
);
export type User = Static<typeof User>;

export const UserListQuery = Type.Object({
  page: PageNumber(),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Users per page, 1..100.' }),
  search: Type.Optional(
    Type.String({
      maxLength: 254,
      description: 'Case-insensitive substring of the e-mail, the first name, the last name or "first last".',
    }),
  ),
  role: Type.Optional(RoleField('Only users with this role.')),
  status: Type.Optional(
    StatusField('Only users with this status. Deleted users are listed only when this is `deleted`.'),
  ),
  subscriptionTier: Type.Optional(TierField('Only users on this tier.')),
});
export type UserListQuery = Static<typeof UserListQuery>;

export const UserList = Type.Object(
  {
    users: Type.Array(User, { description: 'The page, newest account first (ties broken by id, descending).' }),
    total: Type.Integer({
      description:
        'How many users match the filters, over all pages. With a `search`, counted up to ' +
        `${BOUND}: ${BOUND} means ${BOUND} or more (pages past it are still answered; decision 310).`,
    }),
    page: Type.Integer({ description: 'The page returned.' }),
    limit: Type.Integer({ description: 'The page size used.' }),
  },
  { description: 'A page of users.' },
);
export type UserList = Static<typeof UserList>;

export const UserIdParams = Type.Object({
  user_id: Type.String({ description: 'User id (UUID); any other value is an unknown user (404).' }),
});

export const UserPatch = Type.Object(
  {
    role: Type.Optional(RoleField('New role. An admin cannot demote themselves (409).')),
    subscriptionTier: Type.Optional(TierField('New subscription tier.')),
    status: Type.Optional(
      StatusField(
        'New status. `suspended` and `deleted` revoke every session at once; `active` restores a suspended or ' +
          'deleted user. An admin cannot suspend or delete themselves (409).',
      ),
    ),
    emailVerified: Type.Optional(Type.Boolean({ description: 'Mark the address verified or not.' })),
    twoFactorEnabled: Type.Optional(
      Type.Boolean({
        description:
          "`false` resets the user's second factor (secret and recovery codes removed, every session revoked, " +
          "audited), though not an admin's own (409: they turn it off with POST /api/auth/2fa/disable); `true` " +
          'is refused with 422 unless it is on already: the user enrolls themselves.',
      }),
    ),
  },
  { description: 'Fields to change; absent fields stay as they are.' },
);
export type UserPatch = Static<typeof UserPatch>;

export const SuccessFlag = Type.Object(
  { success: Type.Boolean({ description: 'True when the operation was carried out.' }) },
  { description: 'Outcome.' },
);

export const PlatformStats = Type.Object(
  {
    totalUsers: Type.Number({ description: 'Users that are not deleted.' }),
    activeUsers: Type.Number({ description: 'Users with status `active`.' }),
    suspendedUsers: Type.Number({ description: 'Users with status `suspended`.' }),
    newUsersThisMonth: Type.Number({
      description: 'Users (not deleted) created since the start of the current UTC calendar month.',
    }),
    totalRevenue: Type.Number({
      description:
        'Sum of the payments ledger in the settlement currency (`revenueCurrency`, major units); other ' +
        'currencies are not added in. 0 when there is none.',
    }),
    revenueCurrency: Type.String({
      description: 'ISO 4217 code of `totalRevenue`: SETTLEMENT_CURRENCY, USD by default.',
    }),
    revenueByCurrency: Type.Record(Type.String(), Type.Number(), {
      description:
        'Sum of the payments ledger per currency (ISO 4217 code, upper case → major units); empty when the ledger is.',
    }),
  },
  { description: 'Platform statistics.' },
);
export type PlatformStats = Static<typeof PlatformStats>;

export const ActivityQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'How many entries, 1..100.' }),
});

export const ActivityEntry = Type.Object(
  {
    id: Uuid('Audit entry id.'),
    action: Type.String({ description: 'Dotted verb, e.g. `auth.login`, `admin.user.suspend`.' }),
    actor_id: Nullable(Uuid('Who did it; null for the system.')),
    actor_type: Type.String({ description: '`user`, `admin`, `system`, `webhook` or `job`.' }),
    subject_user_id: Nullable(Uuid('The user the entry concerns.')),
    target_type: Nullable(Type.String({ description: 'Kind of record acted on, e.g. `user`, `session`.' })),
    target_id: Nullable(Type.String({ description: 'Id of the record acted on.' })),
    details: Type.Record(Type.String(), Type.Unknown(), {
      description: 'What changed (field names and values, never secrets).',
    }),
    ip: Nullable(Type.String({ description: 'Client address of the request, when there was one.' })),
    created_at: DateTime('When it happened.'),
  },
  { description: 'One audit-log entry where the user is the subject or the actor.' },
);
export type ActivityEntry = Static<typeof ActivityEntry>;
