// The notifications module's own table: the mail suppression list.
import { eq } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { emailSuppressions } from './notifications.tables.ts';

export function createNotificationsRepository(db: DbExecutor) {
  return {
    async isSuppressed(email: string, executor: DbExecutor = db): Promise<boolean> {
      const rows = await executor
        .select({ email: emailSuppressions.email })
        .from(emailSuppressions)
        .where(eq(emailSuppressions.email, email.trim().toLowerCase()))
        .limit(1);
      return rows.length > 0;
    },

    /** Puts an address on the suppression list; answers whether it was new there. */
    async suppress(email: string, reason: string, now: Date, executor: DbExecutor = db): Promise<boolean> {
      const rows = await executor
        .insert(emailSuppressions)
        .values({ email: email.trim().toLowerCase(), reason, createdAt: now })
        .onConflictDoNothing()
        .returning({ email: emailSuppressions.email });
      return rows.length > 0;
    },
  };
}

export type NotificationsRepository = ReturnType<typeof createNotificationsRepository>;
