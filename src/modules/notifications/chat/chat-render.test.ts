import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryAfterMs } from '../adapters/chat-channel.ts';
import { limitFields, parseChatMessage, truncate, webUrl } from './chat-text.ts';
import { DISCORD_LIMITS, embedLength, toDiscord } from './discord-message.ts';
import { escapeMrkdwn, toSlack } from './slack-message.ts';

const at = new Date('2030-01-01T00:00:00.000Z');

describe('chat text rules', () => {
  it('truncates to the limit with an ellipsis and never splits a character', () => {
    assert.equal(truncate('short', 10), 'short');
    assert.equal(truncate('abcdefghij', 5), 'abcd…');
    const emoji = '😀'.repeat(10); // two UTF-16 units each
    const cut = truncate(emoji, 6);
    assert.ok(cut.length <= 6);
    assert.equal(cut, '😀😀…');
  });

  it('keeps at most max fields and says how many were left out', () => {
    const fields = Array.from({ length: 30 }, (_, i) => ({ name: `f${i}`, value: 'v' }));
    const kept = limitFields(fields, 25);
    assert.equal(kept.length, 25);
    assert.deepEqual(kept.at(-1), { name: '…', value: '6 more not shown' });
  });

  it('accepts only absolute http(s) links', () => {
    assert.equal(webUrl('https://example.com/a', 100), 'https://example.com/a');
    assert.equal(webUrl('/api/v1/tracker/issues/ENG-1', 100), undefined);
    assert.equal(webUrl('javascript:alert(1)', 100), undefined);
    assert.equal(webUrl(`https://example.com/${'a'.repeat(100)}`, 50), undefined);
  });

  it('refuses a stored message without source, title or text', () => {
    assert.equal(parseChatMessage({ title: 't', text: 'x' }), undefined);
    assert.equal(parseChatMessage({ source: 's', title: 't', text: 'x', level: 'loud' }), undefined);
    assert.deepEqual(parseChatMessage({ source: 's', title: 't', text: 'x', url: null }), {
      source: 's',
      title: 't',
      text: 'x',
      level: undefined,
      url: undefined,
      fields: undefined,
    });
  });
});

describe('Slack rendering', () => {
  it('escapes mrkdwn control characters in user text', () => {
    assert.equal(escapeMrkdwn('<!channel> & <https://x|y>'), '&lt;!channel&gt; &amp; &lt;https://x|y&gt;');
  });

  it('splits fields into sections of ten and omits the text section and button when absent', () => {
    const fields = Array.from({ length: 25 }, (_, i) => ({ name: `f${i}`, value: String(i) }));
    const payload = toSlack({ source: 'jobs', title: '', text: '  ', fields, url: 'ftp://example.com' });
    assert.deepEqual(
      payload.blocks.map((b) => b.type),
      ['header', 'section', 'section', 'section', 'context'],
    );
    assert.deepEqual(
      payload.blocks.slice(1, 4).map((b) => (b.fields as unknown[]).length),
      [10, 10, 5],
    );
    assert.equal(
      (payload.blocks[0]!.text as { text: string }).text,
      'ℹ️ jobs',
      'an empty title falls back to the source',
    );
    assert.equal(payload.text, 'ℹ️ jobs');
  });

  it('cuts the header to 150 and the section to 3000 characters', () => {
    const payload = toSlack({ source: 's', title: 'T'.repeat(500), text: 'x'.repeat(5000) });
    assert.equal((payload.blocks[0]!.text as { text: string }).text.length, 150);
    assert.equal((payload.blocks[1]!.text as { text: string }).text.length, 3000);
    assert.ok(payload.text.length <= 3000);
  });
});

describe('Discord rendering', () => {
  it('gives the text priority over fields within the 6000-character embed', () => {
    const fields = Array.from({ length: 25 }, () => ({ name: 'n'.repeat(256), value: 'v'.repeat(1024) }));
    const { embeds } = toDiscord({ source: 's', title: 'T', text: 'd'.repeat(4096), fields }, at);
    const embed = embeds[0];
    assert.equal(embed.description!.length, 4096);
    assert.ok(embedLength(embed) <= DISCORD_LIMITS.embed);
    assert.equal(embed.fields.length, 1);
  });

  it('marks short field values inline and long ones not', () => {
    const { embeds } = toDiscord(
      {
        source: 's',
        title: 'T',
        text: 'x',
        fields: [
          { name: 'a', value: 'short' },
          { name: 'b', value: 'l'.repeat(60) },
        ],
      },
      at,
    );
    assert.deepEqual(
      embeds[0].fields.map((f) => f.inline),
      [true, false],
    );
  });
});

describe('chat 429 waits', () => {
  const headers = (h: Record<string, string>) => new Headers(h);
  it('reads Discord retry_after seconds from the body, milliseconds when implausibly large', () => {
    assert.equal(retryAfterMs(headers({}), '{"retry_after": 2.5}', at), 2500);
    assert.equal(retryAfterMs(headers({}), '{"retry_after": 2500}', at), 2500);
    assert.equal(retryAfterMs(headers({}), '{"retry_after": 0.2}', at), 1000, 'at least a second');
  });

  it('reads Retry-After seconds or a date, clamps to an hour, and defaults to 30 s', () => {
    assert.equal(retryAfterMs(headers({ 'retry-after': '7' }), 'rate_limited', at), 7000);
    assert.equal(
      retryAfterMs(headers({ 'retry-after': new Date(at.getTime() + 12_000).toUTCString() }), '', at),
      12_000,
    );
    assert.equal(retryAfterMs(headers({ 'retry-after': '999999' }), '', at), 3_600_000);
    assert.equal(retryAfterMs(headers({}), '', at), 30_000);
  });
});
