// Cross-cutting tables: identities, sessions, the audit trail, the outbox, the payments ledger and
// the mail suppression list. Module-private tables live in src/modules/<name>/<name>.tables.ts.

import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

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
    role: text('role').notNull().default('user'),
    subscriptionTier: text('subscription_tier').notNull().default('free'),
    status: text('status').notNull().default('active'),
    emailVerified: boolean('email_verified').notNull().default(false),
    twoFactorEnabled: boolean('two_factor_enabled').notNull().default(false),
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
    index('users_status_idx').on(t.status),
    index('users_role_idx').on(t.role),
    index('users_subscription_tier_idx').on(t.subscriptionTier),
    // The admin search's trigram indexes are created at start where pg_trgm exists (database.ts).
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
  },
  (t) => [index('device_sessions_user_idx').on(t.userId), index('device_sessions_expires_idx').on(t.expiresAt)],
);

export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => deviceSessions.id, { onDelete: 'cascade' }),
    /** SHA-256 of the token; the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Set when the token was exchanged for a new one; presenting it again is reuse. */
    rotatedAt: timestamp('rotated_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('refresh_tokens_hash_key').on(t.tokenHash), index('refresh_tokens_session_idx').on(t.sessionId)],
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
  (t) => [uniqueIndex('password_reset_tokens_hash_key').on(t.tokenHash)],
);

/** Every state-changing operation of the service writes one row here. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    actorId: uuid('actor_id'),
    /** user | admin | system | webhook | job */
    actorType: text('actor_type').notNull(),
    action: text('action').notNull(),
    /** The user the event concerns, so a user's activity is one index scan. */
    subjectUserId: uuid('subject_user_id'),
    targetType: text('target_type'),
    targetId: text('target_id'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    ip: text('ip'),
    createdAt: createdAt(),
  },
  (t) => [
    index('audit_log_subject_idx').on(t.subjectUserId, t.createdAt.desc()),
    index('audit_log_actor_idx').on(t.actorId, t.createdAt.desc()),
    index('audit_log_created_idx').on(t.createdAt.desc()),
  ],
);

export const outbox = pgTable(
  'outbox',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Handler name, e.g. `chat.post`, `mail.send`. */
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    /** pending | processing | done | dead */
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(8),
    availableAt: timestamp('available_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    lastError: text('last_error'),
    /** What the handler reported on success, e.g. `recorded only: no webhook URL configured`. */
    result: text('result'),
    /** Optional: a second enqueue with the same key is a no-op. */
    dedupeKey: text('dedupe_key'),
    createdAt: createdAt(),
    /** When the last attempt ended: done, dead, or failed and waiting for its retry. */
    processedAt: timestamp('processed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('outbox_claim_idx').on(t.status, t.availableAt),
    uniqueIndex('outbox_dedupe_key').on(t.dedupeKey),
    index('outbox_kind_idx').on(t.kind, t.createdAt.desc()),
  ],
);

/** Payments recorded from the payment provider's webhooks; the source of `totalRevenue`. */
export const paymentsLedger = pgTable(
  'payments_ledger',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Provider's object id (e.g. the invoice id); a payment is recorded once. */
    externalId: text('external_id').notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    customerEmail: text('customer_email'),
    /** Major units (e.g. dollars), exact. */
    amount: numeric('amount', { precision: 20, scale: 8 }).notNull(),
    currency: text('currency').notNull(),
    kind: text('kind').notNull().default('payment'),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('payments_ledger_external_key').on(t.externalId)],
);

/** Addresses that bounced or complained; no mail is sent to them. */
export const emailSuppressions = pgTable('email_suppressions', {
  email: text('email').primaryKey(),
  reason: text('reason').notNull(),
  createdAt: createdAt(),
});

