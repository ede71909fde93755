import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
// The outbox's retry bookkeeping (attempts, next try, dead letters): the dashboard shows only its totals.
import { outbox } from '../../../src/platform/db/schema.ts';
import { CHAT_KIND, enqueue as enqueueRow } from '../../../src/modules/notifications/notifications.outbox.ts';
import type { ChatMessage } from '../../../src/modules/notifications/index.ts';
import { createOutboxWorker } from '../../../src/platform/outbox/outbox-worker.ts';
import { createNotificationsModule } from '../../../src/modules/notifications/index.ts';
import { buildTestApp, notificationsDeps, signIn } from '../../helpers/test-app.ts';
import { startChatReceiver } from '../../fakes/chat-webhook.ts';
import { useChatApp } from './chat-fixtures.ts';

const message: ChatMessage = {
  source: 'codehost',
  title: 'Build failed on main',
  text: 'Workflow *ci* failed for <@here> & friends',
  level: 'error',
  url: 'https://example.com/runs/42',
  fields: [
    { name: 'Branch', value: 'main' },
    { name: 'Commit', value: 'abc123' },
  ],
};

describe('chat notifications to a Slack-compatible webhook', () => {
  const clock = fixedClock(new Date());
  const { receiver, t, row, enqueue: enqueueChat } = useChatApp('slack', clock);
  const enqueue = (chat: ChatMessage = message) => enqueueChat(chat);

  it('posts text and blocks, and marks the row delivered', async () => {
    const id = await enqueue();
    await t.platform.outbox.drain();
    assert.equal(receiver.accepted.length, 1);
    const body = receiver.accepted[0] as { text: string; blocks: { type: string; [k: string]: unknown }[] };
    assert.equal(body.text, '🚨 Build failed on main: Workflow *ci* failed for &lt;@here&gt; &amp; friends');
    assert.deepEqual(
      body.blocks.map((b) => b.type),
      ['header', 'section', 'section', 'actions', 'context'],
    );
    assert.deepEqual(body.blocks[0]!.text, { type: 'plain_text', text: '🚨 Build failed on main', emoji: true });
    assert.deepEqual(body.blocks[2]!.fields, [
      { type: 'mrkdwn', text: '*Branch*\nmain' },
      { type: 'mrkdwn', text: '*Commit*\nabc123' },
    ]);
    assert.deepEqual(body.blocks[3]!.elements, [
      { type: 'button', text: { type: 'plain_text', text: 'Open' }, url: 'https://example.com/runs/42' },
    ]);
    assert.equal(receiver.received.at(-1)!.headers['content-type'], 'application/json');
    const delivered = await row(id);
    assert.equal(delivered.status, 'done');
    assert.equal(delivered.result, 'delivered: slack webhook answered HTTP 200');
  });

  it('honours 429 Retry-After, then delivers the message once', async () => {
    const id = await enqueue({ ...message, title: 'rate limited once' });
    receiver.respondNext({ status: 429, body: 'rate_limited', headers: { 'retry-after': '7' } });
    const before = receiver.received.length;
    await t.platform.outbox.drain();
    let waiting = await row(id);
    assert.equal(waiting.status, 'pending');
    assert.equal(waiting.attempts, 0, 'a wait the receiver asked for uses up no attempt');
    assert.match(waiting.lastError!, /HTTP 429 rate_limited/);
    assert.equal(waiting.availableAt.getTime() - clock.now().getTime(), 7000);

    await t.platform.outbox.drain();
    assert.equal(receiver.received.length, before + 1, 'nothing is sent before Retry-After');
    clock.advance(7000);
    await t.platform.outbox.drain();
    waiting = await row(id);
    assert.equal(waiting.status, 'done');
    assert.equal(waiting.attempts, 1);
    assert.equal(receiver.received.length, before + 2);
    assert.equal(receiver.accepted.filter((b) => String(b.text).includes('rate limited once')).length, 1);
  });

  it(
    'after a 429 posts nothing until Retry-After has passed; ' + 'rows held back use up no attempt and go out in order',
    async () => {
      clock.advance(3_600_000);
      await t.platform.outbox.drain();
      const titles = ['held back 1', 'held back 2', 'held back 3'];
      const ids: string[] = [];
      for (const title of titles) {
        // Two attempts only: if a 429 used one up, the first row would die at its second 429.
        ids.push(
          (await enqueueRow(
            { kind: CHAT_KIND, payload: { ...message, title }, maxAttempts: 2 },
            clock.now(),
            t.database.db,
          ))!,
        );
        clock.advance(1);
      }
      const posts = () => receiver.received.filter((r) => String(r.body.text).includes('held back')).length;
      const limited = { status: 429, body: 'rate_limited', headers: { 'retry-after': '5' } };
      receiver.respondNext(limited, limited, limited);

      for (let window = 1; window <= 3; window++) {
        await t.platform.outbox.drain();
        assert.equal(posts(), window, `exactly one post reaches the receiver in window ${window}`);
        const held = await Promise.all(ids.map(row));
        assert.deepEqual(
          held.map((r) => [r.status, r.attempts]),
          [
            ['pending', 0],
            ['pending', 0],
            ['pending', 0],
          ],
        );
        assert.ok(
          held.every((r) => r.availableAt.getTime() === clock.now().getTime() + 5000),
          'each waits until the window ends',
        );
        assert.match(held[1]!.lastError!, /^not sent: the chat webhook asked us to wait \(HTTP 429\), 5 s left$/);
        clock.advance(4_999);
        await t.platform.outbox.drain();
        assert.equal(posts(), window, 'nothing is posted before the window ends');
        clock.advance(1);
      }
      await t.platform.outbox.drain();

      const delivered = await Promise.all(ids.map(row));
      assert.deepEqual(
        delivered.map((r) => [r.status, r.attempts]),
        [
          ['done', 1],
          ['done', 1],
          ['done', 1],
        ],
      );
      assert.equal(posts(), 3 + 3);
      const accepted = receiver.accepted.map((b) => String(b.text)).filter((text) => text.includes('held back'));
      assert.deepEqual(
        accepted.map((text) => /held back \d/.exec(text)![0]),
        titles,
        'each once, in the order queued',
      );
    },
  );

  it('dead-letters what the receiver refuses (400, 403, 404, 410) at once', async () => {
    for (const [status, body] of [
      [400, 'invalid_payload'],
      [403, 'invalid_token'],
      [404, 'no_service'],
      [410, 'channel_is_archived'],
    ] as const) {
      const id = await enqueue({ ...message, title: `refused ${status}` });
      receiver.respondNext({ status, body });
      await t.platform.outbox.drain();
      const dead = await row(id);
      assert.equal(dead.status, 'dead', String(status));
      assert.equal(dead.attempts, 1);
      assert.equal(dead.lastError, `chat webhook answered HTTP ${status} ${body}`);
    }
  });

  it('retries after a 5xx', async () => {
    const failing = await enqueue({ ...message, title: 'server error' });
    receiver.respondNext({ status: 503, body: 'service unavailable' });
    await t.platform.outbox.drain();
    const waiting = await row(failing);
    assert.deepEqual(
      [waiting.status, waiting.lastError],
      ['pending', 'chat webhook answered HTTP 503 service unavailable'],
    );
    clock.advance(60_000);
    await t.platform.outbox.drain();
    const delivered = await row(failing);
    assert.deepEqual([delivered.status, delivered.lastError, delivered.attempts], ['done', null, 2]);
  });

  it('a row claimed by a worker that died is delivered by the next worker exactly once', async () => {
    clock.advance(3_600_000);
    await t.platform.outbox.drain();
    const id = await enqueue({ ...message, title: 'survives a crash' });
    const sent = () => receiver.received.filter((r) => String(r.body.text).includes('survives a crash')).length;

    // A second worker claims the row and dies holding it: its handler never returns.
    const dying = createOutboxWorker({ database: t.database, clock, logger: t.platform.logger });
    let claimed!: () => void;
    const wasClaimed = new Promise<void>((resolve) => (claimed = resolve));
    dying.register(CHAT_KIND, () => {
      claimed();
      return new Promise<never>(() => {});
    });
    void dying.runOnce();
    await wasClaimed;
    assert.equal((await row(id)).status, 'processing');

    await t.platform.outbox.drain();
    assert.equal(sent(), 0, 'the lease keeps others away while it runs');
    clock.advance(60_001);
    await t.platform.outbox.drain();
    await t.platform.outbox.drain();
    assert.equal(sent(), 1);
    const delivered = await row(id);
    assert.deepEqual([delivered.status, delivered.attempts], ['done', 2]);
  });

  it('delivers what other modules enqueue, e.g. an issue filed by an agent', async () => {
    const admin = await signIn(t.app, t.database, { role: 'admin' });
    const filed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/tracker/issues/agent',
      payload: { title: 'Flaky test', agent_id: 'qa-bot' },
      headers: admin.headers,
    });
    assert.equal(filed.statusCode, 201);
    await t.platform.outbox.drain();
    const posted = receiver.accepted.find((b) =>
      String(b.text).includes(`${filed.json().identifier} filed by agent qa-bot`),
    );
    assert.ok(posted);
  });
});

describe('a chat receiver that does not answer', () => {
  it('is given up on after CHAT_WEBHOOK_TIMEOUT_MS and retried later', async () => {
    const clock = fixedClock(new Date());
    const receiver = await startChatReceiver({ flavor: 'slack' });
    const t = await buildTestApp({ clock, env: { CHAT_WEBHOOK_URL: receiver.url, CHAT_WEBHOOK_TIMEOUT_MS: '500' } });
    try {
      const id = (await t.modules.notifications.messages.chat(t.database.db, message, clock.now()))!;
      receiver.respondNext('hang');
      await t.platform.outbox.drain();
      const [waiting] = await t.database.db.select().from(outbox).where(eq(outbox.id, id));
      assert.deepEqual([waiting!.status, waiting!.lastError], ['pending', 'chat webhook did not answer within 500 ms']);
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});

describe('notification status and the record-only mode', () => {
  it('without CHAT_WEBHOOK_URL the message is recorded only; status reads the outbox', async () => {
    const clock = fixedClock('2030-01-01T00:00:00.000Z');
    const t = await buildTestApp({ clock });
    const receiver = await startChatReceiver({ flavor: 'slack' });
    try {
      const id = (await t.modules.notifications.messages.chat(t.database.db, message, clock.now()))!;
      await t.platform.outbox.drain();
      const [recorded] = await t.database.db.select().from(outbox).where(eq(outbox.id, id));
      assert.deepEqual([recorded!.status, recorded!.result], ['done', 'recorded only: CHAT_WEBHOOK_URL is not set']);
      assert.equal(receiver.received.length, 0);

      const notifications = createNotificationsModule(t.platform, notificationsDeps(t));
      assert.deepEqual(await notifications.status(), {
        chat: {
          configured: false,
          format: 'slack',
          pending: 0,
          dead: 0,
          lastSuccessAt: null,
          lastError: null,
          lastErrorAt: null,
        },
        mail: { configured: false, pending: 0, dead: 0, lastSuccessAt: null, lastError: null, lastErrorAt: null },
      });
    } finally {
      await t.close();
      await receiver.close();
    }
  });

  it('reports pending and dead messages, the last success and the standing error', async () => {
    const clock = fixedClock('2030-01-01T00:00:00.000Z');
    const receiver = await startChatReceiver({ flavor: 'slack' });
    const t = await buildTestApp({ clock, env: { CHAT_WEBHOOK_URL: receiver.url } });
    try {
      const notifications = createNotificationsModule(t.platform, notificationsDeps(t));
      await t.modules.notifications.messages.chat(t.database.db, message, clock.now());
      await t.platform.outbox.drain();
      clock.advance(1000);
      receiver.respondNext({ status: 400, body: 'invalid_payload' }, { status: 500, body: 'oops' });
      await t.modules.notifications.messages.chat(t.database.db, { ...message, title: 'dead' }, clock.now());
      await t.modules.notifications.messages.chat(t.database.db, { ...message, title: 'later' }, clock.now());
      await t.platform.outbox.drain();
      const status = await notifications.status();
      assert.deepEqual(status.chat, {
        configured: true,
        format: 'slack',
        pending: 1,
        dead: 1,
        lastSuccessAt: new Date('2030-01-01T00:00:00.000Z'),
        // The failure still standing: the dead row failed for good, the pending one failed last.
        lastError: 'chat webhook answered HTTP 500 oops',
        lastErrorAt: new Date('2030-01-01T00:00:01.000Z'),
      });
      assert.deepEqual(status.mail, {
        configured: false,
        pending: 0,
        dead: 0,
        lastSuccessAt: null,
        lastError: null,
        lastErrorAt: null,
      });
    } finally {
      await t.close();
      await receiver.close();
    }
  });
});
