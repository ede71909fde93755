// Cross-cutting tables: the audit trail and the outbox. Every other table belongs to one module and
// lives in src/modules/<name>/<name>.tables.ts. Their closed sets of actions and kinds are the
// modules' (each declares its own); the platform never names them. So each table is built by a
// factory: `auditLog` and `outbox` here are the one object runtime code uses, and src/db-schema.ts
// builds them again with every module's list, as the migrations know them (the CHECKs).

import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { uuidv7 } from '../uuid-v7.ts';
import { oneOf } from './checks.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/** Who acts: a user on their own things, an admin on others', or the service itself. */
export const ACTOR_TYPES = ['user', 'admin', 'system', 'webhook', 'job'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export const OUTBOX_STATUSES = ['pending', 'processing', 'done', 'dead'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

/**
 * Every state-changing operation of the service writes one row here. `actions`, when given, are all
 * the modules' audit actions: the database refuses any other (see src/db-schema.ts).
 */
export const auditLogTable = (actions?: readonly string[]) =>
  pgTable(
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
      // What was recorded about one thing (an issue, an order) is one index read, not a scan of the log
      // (decision 1180). Equality only: a hash index, half a b-tree's size on these ids.
      index('audit_log_target_idx').using('hash', t.targetId).where(sql`${t.targetId} IS NOT NULL`),
      check('audit_log_actor_type_check', oneOf(t.actorType, ACTOR_TYPES)),
      ...(actions ? [check('audit_log_action_check', oneOf(t.action, actions))] : []),
    ],
  );

/** The audit trail at run time; which actions it takes is typed by each module's writer (audit.ts). */
export const auditLog = auditLogTable();

/** Effects to deliver after commit. `kinds`, when given, are all the modules' kinds: the database refuses any other. */
export const outboxTable = (kinds?: readonly string[]) =>
  pgTable(
    'outbox',
    {
      id: uuid('id').primaryKey().defaultRandom(),
      kind: text('kind').notNull(),
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
      ...(kinds ? [check('outbox_kind_check', oneOf(t.kind, kinds))] : []),
      check('outbox_status_check', oneOf(t.status, OUTBOX_STATUSES)),
    ],
  );

/** The outbox at run time; which kinds are enqueued is typed by each module's writer (outbox.ts). */
export const outbox = outboxTable();

/**
 * The guard counters' fixed windows while Redis is away (decision 455): the counters that stop guessing
 * (sign-in, second factor, password checks) are kept here, the one store every instance shares, instead
 * of in process memory. A row whose window ended counts as zero; rows are written only during outages.
 */
export const guardCounters = pgTable(
  'guard_counters',
  {
    key: text('key').primaryKey(),
    count: integer('count').notNull(),
    windowEnd: timestamp('window_end', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('guard_counters_window_end_idx').on(t.windowEnd)],
);
