// A chat receiver's answer is read up to CHAT_MAX_ANSWER_BYTES (decision 1042): an answer without end,
// from a broken proxy in front of the webhook, is abandoned at the bound instead of held whole until the
// post's timeout. A 2xx so answered is delivered once, a 5xx is retried with the answer's first words.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHAT_MAX_ANSWER_BYTES } from '../../../src/modules/notifications/adapters/chat-channel.ts';
import type { ChatMessage } from '../../../src/modules/notifications/index.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { ENDLESS_BODY_BYTES } from '../../fakes/endless-body.ts';
import { useChatApp } from './chat-fixtures.ts';

const message: ChatMessage = { source: 'codehost', title: 'Deploy finished', text: 'All green', level: 'info' };

describe("a chat receiver's answer is read within a bound", () => {
  const { receiver, t, enqueue, row } = useChatApp('slack', fixedClock(new Date()));

  const post = async (title: string) => {
    const id = await enqueue({ ...message, title });
    await t.platform.outbox.drain();
    return row(id);
  };
  /** What the receiver wrote of its endless answers: a bound's worth and what socket buffers took. */
  const abandoned = async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(receiver.endless.completed, 0, 'the whole answer was read');
    assert.ok(receiver.endless.sent < ENDLESS_BODY_BYTES / 8, `the receiver wrote ${receiver.endless.sent} bytes`);
  };

  it('a 200 whose answer has no end is delivered, once', async () => {
    receiver.respondNext({ status: 200, endless: true });
    const row = await post('endless ok');
    assert.equal(row.status, 'done');
    assert.equal(row.result, 'delivered: slack webhook answered HTTP 200');
    await abandoned();
    await t.platform.outbox.drain();
    assert.equal(receiver.received.filter((r) => String(r.body.text).includes('endless ok')).length, 1);
  });

  it('a 500 whose answer has no end is retried later, with its first 200 characters', async () => {
    receiver.respondNext({ status: 500, endless: true });
    const row = await post('endless failure');
    assert.equal(row.status, 'pending');
    assert.equal(row.lastError, `chat webhook answered HTTP 500 ${'x'.repeat(200)}`);
    await abandoned();
    assert.ok(CHAT_MAX_ANSWER_BYTES < ENDLESS_BODY_BYTES / 8);
  });
});
