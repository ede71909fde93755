// Set-up shared by the chat notification tests: a receiver speaking one flavour of chat webhook, an app
// posting to it on a fixed clock, and the outbox rows its messages become.
import { eq } from 'drizzle-orm';
import type { ChatMessage } from '../../../src/modules/notifications/index.ts';
import type { fixedClock } from '../../../src/platform/clock.ts';
import { outbox } from '../../../src/platform/db/schema.ts';
import { startChatReceiver } from '../../fakes/chat-webhook.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

export type ChatApp = Awaited<ReturnType<typeof startChatApp>>;

export async function startChatApp(flavor: 'slack' | 'discord', clock: ReturnType<typeof fixedClock>) {
  const receiver = await startChatReceiver({ flavor });
  const t = await buildTestApp({ clock, env: { CHAT_WEBHOOK_URL: receiver.url, CHAT_WEBHOOK_FORMAT: flavor } });
  return {
    receiver,
    t,
    /** The message through the notifications port: its outbox row's id. */
    enqueue: async (chat: ChatMessage) =>
      (await t.modules.notifications.messages.chat(t.database.db, chat, clock.now()))!,
    /** The outbox row, as the post left it. */
    row: async (id: string) => (await t.database.db.select().from(outbox).where(eq(outbox.id, id)))[0]!,
    async close() {
      await t.close();
      await receiver.close();
    },
  };
}
