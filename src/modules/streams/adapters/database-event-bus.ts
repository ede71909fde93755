// LISTEN/NOTIFY on the service's own database: no extra system to run. With PostgreSQL every instance
// hears every NOTIFY (after its commit); the listening session is re-opened after a loss.
import { sql } from 'drizzle-orm';
import type { Database } from '../../../platform/db/database.ts';
import type { EventBus } from './event-bus.ts';

export function createDatabaseEventBus(database: Pick<Database, 'db' | 'listen'>, channel: string): EventBus {
  let stop: (() => Promise<void>) | undefined;
  return {
    kind: 'database',
    notifyChannel: channel,
    async start(onMessage, onReconnect) {
      stop = await database.listen(channel, onMessage, onReconnect);
    },
    async publish(messages) {
      if (messages.length === 0) return;
      // One statement: its notifications are delivered in the order they are written, at its commit.
      const notifies = sql.join(
        messages.map((message) => sql`pg_notify(${channel}, ${message})`),
        sql`, `,
      );
      await database.db.execute(sql`SELECT ${notifies}`);
    },
    async close() {
      await stop?.();
      stop = undefined;
    },
  };
}
