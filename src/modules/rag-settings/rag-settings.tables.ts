// Retrieval-collection settings: a single row (scope `global`), changed under optimistic locking.
import { integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const ragSettings = pgTable(
  'rag_settings',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Always `global`; the unique index makes the row a singleton even under concurrent first reads. */
    scope: text('scope').notNull().default('global'),
    enabledSources: jsonb('enabled_sources').$type<Record<string, boolean>>().notNull(),
    collectionLimits: jsonb('collection_limits').$type<Record<string, number>>().notNull(),
    collectionIntervalMinutes: integer('collection_interval_minutes').notNull(),
    autoExpirationDays: integer('auto_expiration_days').notNull(),
    maxPostsPerRun: integer('max_posts_per_run').notNull(),
    version: integer('version').notNull().default(1),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
    updatedBy: uuid('updated_by'),
  },
  (t) => [uniqueIndex('rag_settings_scope_key').on(t.scope)],
);
