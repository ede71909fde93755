// Set-up shared by the chat notification tests: a receiver speaking one flavour of chat webhook, an app
// posting to it on a fixed clock, and the outbox rows its messages become.
import { after, before } from 'node:test';
import { eq } from 'drizzle-orm';
import type { ChatMessage } from '../../../src/modules/notifications/index.ts';
import type { fixedClock } from '../../../src/platform/clock.ts';
import { outbox } from '../../../src/platform/db/schema.ts';
import { startChatReceiver } from '../../fakes/chat-webhook.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

type FixedClock = ReturnType<typeof fixedClock>;

export type ChatApp = Awaited<ReturnType<typeof startChatApp>>;

/** The receiver and an app posting to it, started now; the caller closes them. */
export async function startChatApp(flavor: 'slack' | 'discord', clock: FixedClock) {
  const receiver = await startChatReceiver({ flavor });
  const t = await buildTestApp({ clock, env: { CHAT_WEBHOOK_URL: receiver.url, CHAT_WEBHOOK_FORMAT: flavor } });
  return {
    receiver,
    t,
    ...chatCalls(t, clock),
    async close() {
      await t.close();
      await receiver.close();
    },
  };
}

/**
 * The receiver and app of the enclosing describe: started in its before hook, closed in its after hook.
 * `receiver` and `t` stay empty until that hook fills them in, so the describe may take them at once.
 */
export function useChatApp(flavor: 'slack' | 'discord', clock: FixedClock) {
  const receiver = {} as ChatApp['receiver'];
  const t = {} as TestApp;
  let started: ChatApp | undefined;
  before(async () => {
    started = await startChatApp(flavor, clock);
    Object.assign(receiver, started.receiver);
    Object.assign(t, started.t);
  });
  after(() => started?.close());
  return { receiver, t, ...chatCalls(t, clock) };
}

/** The calls the chat tests make of `t`'s notifications and outbox. */
function chatCalls(t: TestApp, clock: FixedClock) {
  return {
    /** The message through the notifications port: its outbox row's id. */
    enqueue: async (chat: ChatMessage) =>
      (await t.modules.notifications.messages.chat(t.database.db, chat, clock.now()))!,
    /** The outbox row, as the post left it. */
    row: async (id: string) => (await t.database.db.select().from(outbox).where(eq(outbox.id, id)))[0]!,
  };
}
