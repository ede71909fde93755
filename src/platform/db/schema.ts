// Cross-cutting tables: the audit trail and the outbox. Every other table belongs to one module and
// lives in src/modules/<name>/<name>.tables.ts.

import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

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
