// Cross-cutting tables: the audit trail and the outbox. Every other table belongs to one module and
// lives in src/modules/<name>/<name>.tables.ts.

import { check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { v7 as uuidv7 } from 'uuid';
import { oneOf } from './checks.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/** Who acts: a user on their own things, an admin on others', or the service itself. */
export const ACTOR_TYPES = ['user', 'admin', 'system', 'webhook', 'job'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** Every audited change, as a dotted verb: `<area>.<thing>.<verb>`. Adding one is a migration. */
export const AUDIT_ACTIONS = [
  'admin.platform_limits.update',
  'admin.user.2fa_reset',
  'admin.user.activate',
  'admin.user.delete',
  'admin.user.password_reset',
  'admin.user.password_set',
  'admin.user.suspend',
  'admin.user.update',
  'admin.users.export',
  'auth.2fa.disable',
  'auth.2fa.enable',
  'auth.2fa.recovery_code_used',
  'auth.2fa.reencrypt',
  'auth.2fa.setup',
  'auth.2fa.step_up',
  'auth.2fa_failed',
  'auth.admin_bootstrap',
  'auth.api_token.create',
  'auth.api_token.revoke',
  'auth.login',
  'auth.login_failed',
  'auth.login_mfa_required',
  'auth.logout',
  'auth.password_change',
  'auth.password_change_failed',
  'auth.refresh_reuse_detected',
  'auth.register',
  'billing.grace_period.clear',
  'billing.grace_period.expired',
  'billing.grace_period.open',
  'billing.payment.record',
  'billing.subscription.tier_change',
  'command_center.agent_activity.create',
  'command_center.intel.create',
  'command_center.intel.score',
  'command_center.task.comment',
  'command_center.task.create',
  'command_center.task.update',
  'exchange.balance.sync',
  'exchange.credential.create',
  'exchange.credential.delete',
  'exchange.credential.update',
  'exchange.credential.validate',
  'exchange.credentials.reencrypt',
  'exchange.feetoken_burn.update',
  'exchange.trades.sync',
  'exchange.transfers.sync',
  'mail.suppression.add',
  'provider_key.create',
  'provider_key.delete',
  'provider_key.reencrypt',
  'provider_key.rotate',
  'provider_key.test',
  'provider_key.update',
  'rag_settings.update',
  'strategy.promote',
  'tracker.issue.agent_file',
  'tracker.issue.create',
  'tracker.issue.update',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The outbox's handlers; a row of another kind would never be claimed. */
export const OUTBOX_KINDS = ['chat.post', 'mail.send'] as const;
export type OutboxKind = (typeof OUTBOX_KINDS)[number];

export const OUTBOX_STATUSES = ['pending', 'processing', 'done', 'dead'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

/** Every state-changing operation of the service writes one row here. */
export const auditLog = pgTable(
  'audit_log',
  {
    // Time-ordered ids from the app (UUIDv7): a new row lands at the primary key's right edge instead of
    // on a random page of a large index. SQL inserts without an id still get a random one.
    id: uuid('id')
      .primaryKey()
      .defaultRandom()
      .$defaultFn(() => uuidv7()),
    actorId: uuid('actor_id'),
    actorType: text('actor_type').$type<ActorType>().notNull(),
    action: text('action').$type<AuditAction>().notNull(),
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
    check('audit_log_actor_type_check', oneOf(t.actorType, ACTOR_TYPES)),
    check('audit_log_action_check', oneOf(t.action, AUDIT_ACTIONS)),
  ],
);

export const outbox = pgTable(
  'outbox',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind').$type<OutboxKind>().notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status').$type<OutboxStatus>().notNull().default('pending'),
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
    check('outbox_kind_check', oneOf(t.kind, OUTBOX_KINDS)),
    check('outbox_status_check', oneOf(t.status, OUTBOX_STATUSES)),
  ],
);
