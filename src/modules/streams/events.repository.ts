// Every query on the stored account events.
import { and, asc, eq, gt, lt, or, sql } from 'drizzle-orm';
import { rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { arrayParam, executeText } from '../../platform/db/prepared.ts';
import type { Audience } from '../../platform/stream-events.ts';
import type { StoredEvent } from './events.domain.ts';
import { streamEvents } from './streams.tables.ts';

type Row = typeof streamEvents.$inferSelect;

const toEvent = (row: Row): StoredEvent => ({
  id: row.id.toString(),
  type: row.type,
  audience: row.audience as Audience,
  userId: row.userId,
  data: row.data,
  ts: row.createdAt.toISOString(),
});

/**
 * The events' insert, its text the same for any number of them (they go as arrays, inserted in their
 * order so their ids are drawn in it): built once, and prepared (decision 375). Their data go as one JSON
 * array (`$4`, the events' JSON texts joined), not as an array literal of texts: quoting each JSON text
 * for the literal (every `"` of it escaped) cost more than the rest of the insert's parameters (decision 530).
 */
const INSERT_EVENTS = `INSERT INTO "stream_events" ("type", "audience", "user_id", "data", "created_at")
  SELECT v.type, v.audience, v.user_id, v.data, v.created_at
  FROM unnest($1::text[], $2::text[], $3::uuid[],
      ARRAY(SELECT d.value FROM jsonb_array_elements($4::jsonb) WITH ORDINALITY AS d(value, n) ORDER BY d.n),
      $5::timestamptz[])
    WITH ORDINALITY AS v(type, audience, user_id, data, created_at, n)
  ORDER BY v.n
  RETURNING "id", "type", "audience", "user_id", "data", "created_at"`;

/**
 * The bus message of each stored row, `{"o": origin, "e": event}`, or `{"o": origin, "r": id}` past `$7`
 * bytes (the event then read by id): its one definition, whichever bus carries it (decision 491). The
 * event is the row as `StoredEvent` has it (the id as text, the time as `toISOString` writes it), so a
 * receiver's `e` is what the publisher dispatched and what a replay reads.
 */
const MESSAGE_OF_STORED = `FROM stored, LATERAL (SELECT CASE WHEN octet_length(f.full) <= $7::int THEN f.full
      ELSE json_build_object('o', $6::text, 'r', stored.id::text)::text END AS message
    FROM (SELECT json_build_object('o', $6::text, 'e', json_build_object('id', stored.id::text,
      'type', stored.type, 'audience', stored.audience, 'userId', stored.user_id, 'data', stored.data,
      'ts', to_char(stored.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))::text AS full) AS f) AS m`;

/**
 * Values other modules read beside each stored event, in the insert's statement (decision 870): each an SQL
 * expression over the stored row (`stored.user_id`, `stored.type`), answered as `companion_<i>`. Their texts
 * are the reading module's; the insert only places them.
 */
export type EventCompanions = readonly string[];

const companionColumns = (companions: EventCompanions) =>
  companions.map((expression, i) => `, (${expression}) AS companion_${i}`).join('');

/** The insert's three texts for a list of companions, built once per list (the service keeps one list). */
interface InsertTexts {
  /** `INSERT_EVENTS` alone, or with the companions read beside it. */
  plain: string;
  /** Answering each event's bus message, for a bus the service publishes to (Redis). */
  messaged: string;
  /**
   * Sending each event's message on the database's bus (channel `$8`) as it is stored (decision 416), in the
   * events' order (NOTIFY keeps the order of its calls; the output list is computed after the sort).
   */
  notified: string;
}

const NO_COMPANIONS: EventCompanions = [];
const textsByCompanions = new WeakMap<EventCompanions, InsertTexts>();

function insertTexts(companions: EventCompanions): InsertTexts {
  let texts = textsByCompanions.get(companions);
  if (!texts) {
    const columns = companionColumns(companions);
    texts = {
      plain:
        companions.length === 0
          ? INSERT_EVENTS
          : `WITH stored AS (${INSERT_EVENTS})
  SELECT stored.*${columns} FROM stored
  ORDER BY stored.id`,
      messaged: `WITH stored AS (${INSERT_EVENTS})
  SELECT stored.*, m.message${columns} ${MESSAGE_OF_STORED}
  ORDER BY stored.id`,
      notified: `WITH stored AS (${INSERT_EVENTS})
  SELECT stored.*, pg_notify($8::text, m.message) AS notified${columns} ${MESSAGE_OF_STORED}
  ORDER BY stored.id`,
    };
    textsByCompanions.set(companions, texts);
  }
  return texts;
}

/** What the bus's messages need: this instance's origin, the size past which an event goes by id, the database's channel. */
export interface BusMessages {
  origin: string;
  maxBytes: number;
  /** The database's bus: the statement sends the messages itself (NOTIFY), and answers none. */
  notifyChannel?: string;
}

/** A stored event, and its bus message when the statement did not send it itself. */
export interface Published {
  event: StoredEvent;
  message?: string;
  /** The companions' values read beside it, by their index in the list given (decision 870). */
  companions?: unknown[];
}

/**
 * An event whose data has no JSON text (undefined, a function): refused before the insert, by name. Every
 * declared event's data is an object (its schema), the column is NOT NULL and the envelope's `data` is
 * required, so a publication without data is a publisher's bug, not an absent value to store as null.
 */
export class EventDataError extends Error {
  override name = 'EventDataError';
  constructor(readonly type: string) {
    super(`account event ${type} carries no JSON data; every declared event's data is an object`);
  }
}

/** The JSON text of an event's data, refusing data that has none (`JSON.stringify` answers undefined). */
function dataText(event: { type: string; data: unknown }): string {
  const text = JSON.stringify(event.data) as string | undefined;
  if (text === undefined) throw new EventDataError(event.type);
  return text;
}

/** A row as the raw insert answers it: the id as the driver gives a bigint, the time as text or a Date. */
interface RawEvent {
  id: string | number | bigint;
  type: string;
  audience: string;
  user_id: string | null;
  data: unknown;
  created_at: string | Date;
  /** The bus message, from the messaged insert. */
  message?: string;
}

export function createEventsRepository(db: DbExecutor) {
  return {
    /**
     * Stores events in one statement; answers them in their order, with their ids. The ids are taken in
     * the order of the rows (each row's default is drawn as it is inserted), so sorting the answer by id
     * gives the events' order whatever order RETURNING lists them in. With `bus`, the same statement
     * builds each event's message (`MESSAGE_OF_STORED`) and sends it on the database's bus or answers it.
     */
    async insertAll(
      events: readonly { type: string; audience: Audience; userId: string | null; data: unknown; at: Date }[],
      bus?: BusMessages,
      companions: EventCompanions = NO_COMPANIONS,
    ): Promise<Published[]> {
      if (events.length === 0) return [];
      const texts = insertTexts(companions);
      const data = events.map(dataText);
      const values = [
        arrayParam(events.map((e) => e.type)),
        arrayParam(events.map((e) => e.audience)),
        arrayParam(events.map((e) => e.userId)),
        `[${data.join(',')}]`,
        arrayParam(events.map((e) => e.at.toISOString())),
      ];
      const answer = !bus
        ? await executeText(db, 'stream_events_insert', texts.plain, values)
        : bus.notifyChannel
          ? await executeText(db, 'stream_events_insert_notified', texts.notified, [
              ...values,
              bus.origin,
              bus.maxBytes,
              bus.notifyChannel,
            ])
          : await executeText(db, 'stream_events_insert_messaged', texts.messaged, [
              ...values,
              bus.origin,
              bus.maxBytes,
            ]);
      const companionsOf = (raw: RawEvent) =>
        companions.map((_, i) => (raw as unknown as Record<string, unknown>)[`companion_${i}`]);
      return rowsOf<RawEvent>(answer)
        .map((raw) => ({
          seq: BigInt(raw.id),
          message: raw.message,
          companions: companions.length === 0 ? undefined : companionsOf(raw),
          event: {
            id: String(raw.id),
            type: raw.type,
            audience: raw.audience as Audience,
            userId: raw.user_id,
            // As Drizzle maps the column's driver value.
            data: streamEvents.data.mapFromDriverValue(raw.data),
            ts: new Date(raw.created_at).toISOString(),
          } satisfies StoredEvent,
        }))
        .sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0))
        .map(({ event, message, companions: read }) => {
          const published: Published = message === undefined ? { event } : { event, message };
          if (read) published.companions = read;
          return published;
        });
    },

    async byId(id: string): Promise<StoredEvent | undefined> {
      const [row] = await db
        .select()
        .from(streamEvents)
        .where(eq(streamEvents.id, BigInt(id)))
        .limit(1);
      return row ? toEvent(row) : undefined;
    },

    /** The subscriber's events after `afterId` and since `since`, oldest first, at most `limit`. */
    async after(query: {
      userId: string;
      admin: boolean;
      afterId: bigint;
      since: Date;
      limit: number;
    }): Promise<StoredEvent[]> {
      const audience = query.admin
        ? or(eq(streamEvents.userId, query.userId), eq(streamEvents.audience, 'admins'))
        : eq(streamEvents.userId, query.userId);
      const rows = await db
        .select()
        .from(streamEvents)
        .where(and(gt(streamEvents.id, query.afterId), sql`${streamEvents.createdAt} >= ${query.since}`, audience))
        .orderBy(asc(streamEvents.id))
        .limit(query.limit);
      return rows.map(toEvent);
    },

    /** Every event after `afterId` and since `since` (a catch-up after a bus outage). */
    async allAfter(afterId: bigint, since: Date, limit: number): Promise<StoredEvent[]> {
      const rows = await db
        .select()
        .from(streamEvents)
        .where(and(gt(streamEvents.id, afterId), sql`${streamEvents.createdAt} >= ${since}`))
        .orderBy(asc(streamEvents.id))
        .limit(limit);
      return rows.map(toEvent);
    },

    /** The newest id (0 when empty). */
    async maxId(): Promise<bigint> {
      const [row] = await db.select({ max: sql<string | null>`max(${streamEvents.id})` }).from(streamEvents);
      return row?.max ? BigInt(row.max) : 0n;
    },

    /** Deletes what is older than `before`; answers how many. */
    async prune(before: Date): Promise<number> {
      const deleted = await db
        .delete(streamEvents)
        .where(lt(streamEvents.createdAt, before))
        .returning({ id: streamEvents.id });
      return deleted.length;
    },
  };
}

export type EventsRepository = ReturnType<typeof createEventsRepository>;
