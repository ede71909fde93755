import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import type { ChatMessage } from '../../../src/modules/notifications/index.ts';
import { startChatApp, type ChatApp } from './chat-fixtures.ts';

interface Embed {
  title: string;
  description?: string;
  color: number;
  url?: string;
  timestamp: string;
  footer: { text: string };
  fields: { name: string; value: string; inline: boolean }[];
}

describe('chat notifications to a Discord-compatible webhook', () => {
  let f: ChatApp;
  let receiver: ChatApp['receiver'];
  let t: ChatApp['t'];
  const clock = fixedClock('2030-03-01T12:00:00.000Z');
  before(async () => {
    f = await startChatApp('discord', clock);
    ({ receiver, t } = f);
  });
  after(() => f.close());

  const enqueue = (chat: ChatMessage) => f.enqueue(chat);
  const row = (id: string) => f.row(id);

  it('posts content and one embed coloured by level, and counts the 204 as delivered', async () => {
    const id = await enqueue({
      source: 'payments',
      title: 'Invoice paid',
      text: '$49.00 from ada@example.com',
      level: 'success',
      url: 'https://example.com/invoices/in_1',
      fields: [
        { name: 'Plan', value: 'pro' },
        { name: 'Note', value: '' },
      ],
    });
    await t.platform.outbox.drain();
    assert.equal(receiver.accepted.length, 1);
    const body = receiver.accepted[0] as { content: string; embeds: Embed[]; allowed_mentions: unknown };
    assert.equal(body.content, '✅ Invoice paid');
    assert.deepEqual(body.allowed_mentions, { parse: [] });
    assert.deepEqual(body.embeds, [
      {
        title: 'Invoice paid',
        description: '$49.00 from ada@example.com',
        color: 0x2ecc71,
        url: 'https://example.com/invoices/in_1',
        timestamp: '2030-03-01T12:00:00.000Z',
        footer: { text: 'payments' },
        fields: [
          { name: 'Plan', value: 'pro', inline: true },
          { name: 'Note', value: '\u200b', inline: true },
        ],
      },
    ]);
    assert.equal((await row(id)).result, 'delivered: discord webhook answered HTTP 204');
  });

  it('keeps oversized messages within Discord limits, so the receiver accepts them', async () => {
    const fields = Array.from({ length: 30 }, (_, i) => ({
      name: `field ${i} ${'n'.repeat(300)}`,
      value: 'v'.repeat(2000),
    }));
    const id = await enqueue({
      source: 'errormon',
      title: 'T'.repeat(300),
      text: 'd'.repeat(5000),
      level: 'error',
      url: 'not a url',
      fields,
    });
    await t.platform.outbox.drain();
    assert.equal((await row(id)).status, 'done', (await row(id)).lastError ?? '');
    const embed = (receiver.accepted.at(-1) as { embeds: Embed[] }).embeds[0]!;
    assert.equal(embed.title.length, 256);
    assert.ok(embed.title.endsWith('…'));
    assert.equal(embed.description!.length, 4096);
    assert.equal(embed.color, 0xe74c3c);
    assert.equal(embed.url, undefined, 'a link Discord would refuse is left out');
    assert.ok(embed.fields.length <= 25);
    assert.ok(embed.fields.every((f) => f.name.length <= 256 && f.value.length <= 1024));
    const total =
      embed.title.length +
      embed.description!.length +
      embed.footer.text.length +
      embed.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
    assert.ok(total <= 6000, String(total));
  });

  it('waits for retry_after from a 429 body (seconds, a float), then delivers', async () => {
    const id = await enqueue({ source: 'edge', title: 'Deployment ready', text: 'production' });
    receiver.respondNext({
      status: 429,
      headers: { 'retry-after': '3' },
      body: { message: 'You are being rate limited.', retry_after: 2.5, global: false },
    });
    await t.platform.outbox.drain();
    const waiting = await row(id);
    assert.equal(waiting.status, 'pending');
    // The body's 2.5 s wins over the header's 3 s; the row waits exactly that, not the outbox backoff.
    assert.equal(waiting.availableAt.getTime() - clock.now().getTime(), 2500);
    clock.advance(2500);
    await t.platform.outbox.drain();
    assert.equal((await row(id)).status, 'done');
  });

  it('dead-letters a message Discord refuses as invalid', async () => {
    const id = await enqueue({ source: 'edge', title: 'refused', text: 'x' });
    receiver.respondNext({ status: 400, body: { message: 'Invalid Form Body', code: 50035 } });
    await t.platform.outbox.drain();
    const dead = await row(id);
    assert.equal(dead.status, 'dead');
    assert.match(dead.lastError!, /^chat webhook answered HTTP 400 \{"message":"Invalid Form Body","code":50035\}$/);
  });
});
