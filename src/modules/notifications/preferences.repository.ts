// Users' notification preferences: one row per user who changed them.
import { eq, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { notificationPreferences } from './notifications.tables.ts';
import type { NotifyEvent, StoredChannel } from './preferences.domain.ts';

export interface StoredPreferences {
  channels: StoredChannel[];
  events: NotifyEvent[];
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

    /** Forgets the user's choices: the defaults apply again. Answers whether there were any. */
    async remove(userId: string, executor: DbExecutor = db): Promise<boolean> {
      const rows = await executor
        .delete(notificationPreferences)
        .where(eq(notificationPreferences.userId, userId))
        .returning({ userId: notificationPreferences.userId });
      return rows.length > 0;
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
