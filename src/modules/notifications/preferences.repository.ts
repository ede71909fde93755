// Users' notification preferences: one row per user who changed them.
import { eq, sql } from 'drizzle-orm';
import { rowsOf, type DbExecutor } from '../../platform/db/database.ts';
import { arrayParam, executeText } from '../../platform/db/prepared.ts';
import { notificationPreferences } from './notifications.tables.ts';
import type { NotifyEvent, StoredChannel } from './preferences.domain.ts';

export interface StoredPreferences {
  channels: StoredChannel[];
  events: NotifyEvent[];
}

/** Several users' preferences in one statement, its text the same for any number of them (decision 760). */
const OF_EACH = `SELECT "user_id", "channels", "events" FROM "notification_preferences" WHERE "user_id" = ANY($1::uuid[])`;

/**
 * The preferences of a stored account event's user, read by the events' insert beside each event it stores
 * (decision 870): one JSON object of the two columns, or null for a user on the defaults.
 */
export const PREFERENCES_OF_STORED_EVENT = `SELECT json_build_object('channels', np."channels", 'events', np."events")
    FROM "notification_preferences" AS np WHERE np."user_id" = stored.user_id`;

/** The preferences `PREFERENCES_OF_STORED_EVENT` read, as `of` answers them; undefined for none stored. */
export function storedEventPreferences(read: unknown): StoredPreferences | undefined {
  if (read === null || read === undefined) return undefined;
  const row = (typeof read === 'string' ? JSON.parse(read) : read) as { channels: unknown; events: unknown };
  return {
    // As Drizzle maps the columns' driver values; json_build_object wrote the array as a JSON array.
    channels: notificationPreferences.channels.mapFromDriverValue(row.channels) as StoredChannel[],
    events: row.events as NotifyEvent[],
  };
}

export function createPreferencesRepository(db: DbExecutor) {
  const select = (executor: DbExecutor) =>
    executor
      .select({ channels: notificationPreferences.channels, events: notificationPreferences.events })
      .from(notificationPreferences);
  // Built once: it runs for every fill's notification (decision 375).
  const ofUser = select(db)
    .where(eq(notificationPreferences.userId, sql.placeholder('userId')))
    .limit(1)
    .prepare('notification_preferences_of');
  return {
    async of(userId: string, executor: DbExecutor = db): Promise<StoredPreferences | undefined> {
      const [row] =
        executor === db
          ? await ofUser.execute({ userId })
          : await select(executor).where(eq(notificationPreferences.userId, userId)).limit(1);
      return row;
    },

    /**
     * The user's preferences, their row locked until the caller's transaction ends (decision 861): every
     * read-modify-write of them (a PUT, a chat linked or unlinked) goes through here, so that none writes
     * over another's change. A user without a row gets one holding `defaults` first, so that two writers
     * of a new user's choices lock the same row.
     */
    async lockOf(userId: string, defaults: StoredPreferences, now: Date, tx: DbExecutor): Promise<StoredPreferences> {
      await tx
        .insert(notificationPreferences)
        .values({ userId, channels: defaults.channels, events: defaults.events, updatedAt: now })
        .onConflictDoNothing({ target: notificationPreferences.userId });
      const [row] = await select(tx).where(eq(notificationPreferences.userId, userId)).for('update');
      return row ?? defaults;
    },

    /** Forgets the user's choices: the defaults apply again. Answers whether there were any. */
    async remove(userId: string, executor: DbExecutor = db): Promise<boolean> {
      const rows = await executor
        .delete(notificationPreferences)
        .where(eq(notificationPreferences.userId, userId))
        .returning({ userId: notificationPreferences.userId });
      return rows.length > 0;
    },

    /** The preferences of each of `userIds` who stored any, by user id, in one statement. */
    async ofEach(userIds: readonly string[]): Promise<Map<string, StoredPreferences>> {
      const raw = rowsOf<{ user_id: string; channels: unknown; events: unknown }>(
        await executeText(db, 'notification_preferences_of_each', OF_EACH, [arrayParam(userIds)]),
      );
      return new Map(
        raw.map((row) => [
          row.user_id,
          {
            // As Drizzle maps the columns' driver values.
            channels: notificationPreferences.channels.mapFromDriverValue(row.channels) as StoredChannel[],
            events: notificationPreferences.events.mapFromDriverValue(row.events) as NotifyEvent[],
          },
        ]),
      );
    },

    async save(userId: string, preferences: StoredPreferences, now: Date, executor: DbExecutor = db): Promise<void> {
      const set = { channels: preferences.channels, events: preferences.events, updatedAt: now };
      await executor
        .insert(notificationPreferences)
        .values({ userId, ...set })
        .onConflictDoUpdate({ target: notificationPreferences.userId, set });
    },
  };
}

export type PreferencesRepository = ReturnType<typeof createPreferencesRepository>;
