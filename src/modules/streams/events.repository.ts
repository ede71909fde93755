// Every query on the stored account events.
import { and, asc, eq, gt, lt, or, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
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

export function createEventsRepository(db: DbExecutor) {
  return {
    /**
     * Stores events in one statement; answers them in their order, with their ids. The ids are taken in
     * the order of the rows (each row's default is drawn as it is inserted), so sorting the answer by id
     * gives the events' order whatever order RETURNING lists them in.
     */
    async insertAll(
      events: readonly { type: string; audience: Audience; userId: string | null; data: unknown; at: Date }[],
    ): Promise<StoredEvent[]> {
      if (events.length === 0) return [];
      const rows = await db
        .insert(streamEvents)
        .values(
          events.map((event) => ({
            type: event.type,
            audience: event.audience,
            userId: event.userId,
            data: event.data,
            createdAt: event.at,
          })),
        )
        .returning();
      return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(toEvent);
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
