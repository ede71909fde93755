// The account events kept for replay (Last-Event-ID) for 24 hours: the sequence is the SSE `id`.
import { sql, type SQL } from 'drizzle-orm';
import { bigserial, check, index, jsonb, pgTable, text, timestamp, uuid, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { AUDIENCES } from '../../platform/stream-events.ts';

const oneOf = (column: AnyPgColumn, values: readonly string[]): SQL =>
  sql`${column} IN (${sql.raw(values.map((v) => `'${v}'`).join(', '))})`;

/**
 * Built by a factory, as the events are their publishers' (each module declares its own): `types`, when
 * given, are every declared event type, for the CHECK drizzle-kit writes from the declarations.
 */
export const streamEventsTable = (types?: readonly string[]) =>
  pgTable(
    'stream_events',
    {
      /** Increases with every event: what a client sends back as Last-Event-ID. */
      id: bigserial('id', { mode: 'bigint' }).primaryKey(),
      type: text('type').notNull(),
      /** `user`: the event concerns `user_id` only; `admins`: every admin sees it. */
      audience: text('audience').notNull(),
      /** No foreign key: an event outlives nothing and is pruned after 24 hours anyway. */
      userId: uuid('user_id'),
      /** The event's data, of the schema its publisher declared. */
      data: jsonb('data').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    },
    (t) => [
      index('stream_events_user_idx').on(t.userId, t.id),
      index('stream_events_created_idx').on(t.createdAt),
      ...(types ? [check('stream_events_type_check', oneOf(t.type, types))] : []),
      check('stream_events_audience_check', oneOf(t.audience, AUDIENCES)),
      check('stream_events_user_check', sql`(${t.audience} = 'admins') = (${t.userId} IS NULL)`),
    ],
  );

/** The table at run time; the publishers' declarations type what is written (src/declarations.ts). */
export const streamEvents = streamEventsTable();
