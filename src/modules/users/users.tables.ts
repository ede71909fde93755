// The identity tables: accounts, their device sessions, refresh tokens and password-reset links.
// Only this module's repositories read or write them; other modules' tables may name users.id in
// a foreign key.
import {
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { oneOf } from '../../platform/db/checks.ts';
import { ROLES, STATUSES, TIERS, type Role, type Tier, type UserStatus } from './users.domain.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Stored lower-cased; uniqueness is on this column. */
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    role: text('role').$type<Role>().notNull().default('user'),
    subscriptionTier: text('subscription_tier').$type<Tier>().notNull().default('free'),
    status: text('status').$type<UserStatus>().notNull().default('active'),
    emailVerified: boolean('email_verified').notNull().default(false),
    /**
     * The platform owner's account (decision 903): set by the configured first admin's bootstrap and the
     * operator's command line only; other admins cannot demote, suspend, delete or reset it.
     */
    owner: boolean('owner').notNull().default(false),
    /** Whether the account has a second factor: a TOTP authenticator, a passkey or both (decision 204). */
    twoFactorEnabled: boolean('two_factor_enabled').notNull().default(false),
    /** Whether a TOTP authenticator is enrolled and confirmed (a pending setup is not). */
    totpEnabled: boolean('totp_enabled').notNull().default(false),
    /**
     * The TOTP secret (base32), sealed with the secret box and bound to this row and column: set by
     * setup, in force once `two_factor_enabled` (decision 140); null when two-factor is off.
     */
    totpSecretSealed: text('totp_secret_sealed'),
    /**
     * The last TOTP time step accepted for this user: a code of this step or an earlier one is refused (decision 141).
     */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }).notNull().default(0),
    avatar: text('avatar'),
    lastLogin: timestamp('last_login', { withTimezone: true, mode: 'date' }),
    /** Set by a failed payment; the grace-period job returns the user to the free tier after it. */
    gracePeriodEndsAt: timestamp('grace_period_ends_at', { withTimezone: true, mode: 'date' }),
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_key').on(t.email),
    index('users_created_at_id_idx').on(t.createdAt.desc(), t.id.desc()),
    // The admin list filtered by status or role reads its page in the date order within that value: one
    // plan, made for any value (database.ts), reads as few entries for a rare role as for a common one
    // (decision 401). Neither column's entry changes when the date or the id does, which never change.
    index('users_status_idx').on(t.status, t.createdAt.desc(), t.id.desc()),
    index('users_role_idx').on(t.role, t.createdAt.desc(), t.id.desc()),
    // No index on the tier or the grace period's end (decision 182): an update that changes no indexed
    // column and finds room on its page (users.routines.sql lowers the fill factor) writes no index
    // entry, which is what ending thousands of grace periods at once needs. The grace-period job finds
    // the ended ones in user_grace_periods instead; the admin list's tier filter rides its date order.
    // The admin search's trigram indexes are created at start where pg_trgm exists (database.ts).
    // A search for a term with a space reads the accounts whose last name starts with what follows
    // the space, and those with a space within a name (decision 355, accounts-search.ts): the
    // predicate and the expression are the search's own, word for word. SP-GiST answers `^@` (starts
    // with) for a bound value, which a b-tree answers only for a constant, and the app's statements
    // are planned for any value (decision 192).
    index('users_last_name_prefix_idx').using('spgist', sql`lower(${t.lastName})`),
    index('users_spaced_name_idx').on(t.id).where(sql`${t.firstName} LIKE '% %' OR ${t.lastName} LIKE '% %'`),
    check('users_role_check', oneOf(t.role, ROLES)),
    check('users_status_check', oneOf(t.status, STATUSES)),
    check('users_subscription_tier_check', oneOf(t.subscriptionTier, TIERS)),
  ],
);

/**
 * The accounts whose payment grace period has an end, by that end: what the grace-period job reads
 * instead of an index on users (decision 182). The database keeps it from users.grace_period_ends_at,
 * whatever writes the accounts (users.routines.sql); `db:reconcile` checks and rebuilds it.
 */
export const userGracePeriods = pgTable(
  'user_grace_periods',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    endsAt: timestamp('ends_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('user_grace_periods_ends_idx').on(t.endsAt, t.userId)],
);

/**
 * How many accounts there are of each status, role and tier, per UTC day of creation: what the admin
 * list's totals and deep pages read instead of the accounts when a role or tier is asked for. The
 * database keeps it, whatever writes the accounts (users.figures.ts); `db:reconcile` rebuilds it
 * (docs/decisions/124).
 */
export const userCounts = pgTable(
  'user_counts',
  {
    status: text('status').$type<UserStatus>().notNull(),
    role: text('role').$type<Role>().notNull(),
    subscriptionTier: text('subscription_tier').$type<Tier>().notNull(),
    createdDay: date('created_day', { mode: 'string' }).notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.status, t.role, t.subscriptionTier, t.createdDay] })],
);

/**
 * The same counts by status and day only (decision 193): what the platform statistics, the dashboard
 * and the admin list read when no role or tier is asked for, at a tenth of `user_counts`' rows. Kept
 * by the database like it (users.figures.ts).
 */
export const userDayCounts = pgTable(
  'user_day_counts',
  {
    status: text('status').$type<UserStatus>().notNull(),
    createdDay: date('created_day', { mode: 'string' }).notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.status, t.createdDay] })],
);

/**
 * Sessions not revoked, per UTC day of expiry, kept by the database (users.figures.ts, docs/decisions/124):
 * the live sessions are the later days' and today's still unexpired.
 */
export const deviceSessionExpiryDays = pgTable('device_session_expiry_days', {
  day: date('day', { mode: 'string' }).primaryKey(),
  n: integer('n').notNull(),
});

/**
 * Which user of an external identity provider is which account: linked by a verified e-mail address
 * the first time, found by (issuer, subject) from then on, so a later change of address at the
 * provider cannot move the identity to another account (decision 009).
 */
export const externalIdentities = pgTable(
  'external_identities',
  {
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    linkedAt: timestamp('linked_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.issuer, t.subject] }),
    // One identity per provider per account.
    uniqueIndex('external_identities_user_issuer_key').on(t.userId, t.issuer),
  ],
);

export const deviceSessions = pgTable(
  'device_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    userAgent: text('user_agent'),
    ip: text('ip'),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    revokeReason: text('revoke_reason'),
    /**
     * When this session last presented a second factor (sign-in or step-up) and which one (`otp`,
     * `recovery_code`); access tokens carry it as `auth_time` and `amr` (decision 143).
     */
    secondFactorAt: timestamp('second_factor_at', { withTimezone: true, mode: 'date' }),
    secondFactorMethod: text('second_factor_method'),
    /** How the session signed in first: `pwd` (a password) or `webauthn` (a passkey, no password; decision 204). */
    firstFactor: text('first_factor').notNull().default('pwd'),
  },
  (t) => [
    index('device_sessions_user_idx').on(t.userId),
    index('device_sessions_expires_idx').on(t.expiresAt),
    // The cleanup job's revoked sessions; most sessions are not revoked.
    index('device_sessions_revoked_idx').on(t.revokedAt).where(sql`${t.revokedAt} IS NOT NULL`),
  ],
);

export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    // Its device session: checked as a foreign key would, and the tokens go with their session, by
    // triggers (users.routines.sql) that delete a statement's tokens at once rather than row by row.
    sessionId: uuid('session_id').notNull(),
    /** SHA-256 of the token; the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Set when the token was exchanged for a new one; presenting it again is reuse. */
    rotatedAt: timestamp('rotated_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('refresh_tokens_hash_key').on(t.tokenHash),
    index('refresh_tokens_session_idx').on(t.sessionId),
    index('refresh_tokens_expires_idx').on(t.expiresAt),
    index('refresh_tokens_revoked_idx').on(t.revokedAt).where(sql`${t.revokedAt} IS NOT NULL`),
  ],
);

export const passwordResetTokens = pgTable(
  'password_reset_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('password_reset_tokens_hash_key').on(t.tokenHash),
    // A user deleted deletes its tokens, found here (decision 1490).
    index('password_reset_tokens_user_idx').on(t.userId),
  ],
);

/** The one-time recovery codes of a user's second factor, as SHA-256 (decision 140). */
export const twoFactorRecoveryCodes = pgTable(
  'two_factor_recovery_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    createdAt: createdAt(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('two_factor_recovery_codes_user_hash_key').on(t.userId, t.codeHash)],
);

/**
 * A sign-in waiting for its second factor: the `mfa_token` login answers, stored as its SHA-256,
 * single use and short-lived (decision 141).
 */
export const mfaChallenges = pgTable(
  'mfa_challenges',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('mfa_challenges_hash_key').on(t.tokenHash),
    index('mfa_challenges_expires_idx').on(t.expiresAt),
    // A user deleted deletes its sign-ins waiting for a second factor, found here (decision 1490).
    index('mfa_challenges_user_idx').on(t.userId),
  ],
);

/**
 * Scoped API tokens (`tpk_…`) for scripts and bots: stored as their SHA-256, checked against the
 * database on every request so a revocation, or the owner's demotion or suspension, holds at once on
 * every instance (decision 144).
 */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The token's first characters, shown so its owner can tell tokens apart. */
    prefix: text('prefix').notNull(),
    tokenHash: text('token_hash').notNull(),
    scopes: text('scopes').array().notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('api_tokens_hash_key').on(t.tokenHash), index('api_tokens_user_idx').on(t.userId, t.createdAt)],
);

/**
 * The live code that proves an account's address (decision 845): one per account (a new request replaces
 * it), stored as its SHA-256 with the address it was mailed to, spent by deleting it.
 */
export const emailVerificationTokens = pgTable(
  'email_verification_tokens',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    /** The address the code was mailed to: the code proves that address only. */
    email: text('email').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [uniqueIndex('email_verification_tokens_hash_key').on(t.tokenHash)],
);
