// Telegram's 4096 limit: an over-long message is cut at a code point boundary, never between the two
// halves of an emoji (a lone surrogate is not UTF-8: Telegram, and its fake, answer 400).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTelegramChannel } from '../../../src/modules/notifications/adapters/telegram.ts';
import { startTelegramBot, type TelegramBot } from '../../fakes/telegram.ts';

describe('Telegram over-length messages', () => {
  let bot: TelegramBot;
  before(async () => {
    bot = await startTelegramBot();
  });
  after(() => bot.close());

  const channel = () => createTelegramChannel({ token: bot.token, apiUrl: bot.url, timeoutMs: 5000, fetch });

  it('cuts before an emoji that straddles the limit, and Telegram accepts the message', async () => {
    bot.startChat('7001');
    const text = `${'a'.repeat(4095)}📈 and more`;
    assert.match(await channel().send('7001', text), /^delivered/);
    const { text: sent } = bot.sent.at(-1)!;
    assert.equal(sent, 'a'.repeat(4095));
  });

  it('keeps an emoji that ends exactly at the limit', async () => {
    bot.startChat('7002');
    const text = `${'a'.repeat(4094)}📈 and more`;
    assert.match(await channel().send('7002', text), /^delivered/);
    assert.equal(bot.sent.at(-1)!.text, `${'a'.repeat(4094)}📈`);
  });

  it('the fake refuses a lone surrogate as Telegram does (400)', async () => {
    bot.startChat('7003');
    await assert.rejects(
      channel().send('7003', 'up \ud83d'),
      /HTTP 400: Bad Request: strings must be encoded in UTF-8/,
    );
  });
});
