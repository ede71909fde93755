// Reading the bot's updates by long polling getUpdates (decision 860), against the Bot API fake: a poll
// waits for a message and answers it at once, or [] after its timeout; each batch is confirmed by the next
// poll's offset; a 429 waits its retry_after, a 5xx, a 409 Conflict or a poll that never answers the
// backoff curve, and the reader goes on; an update whose handling failed is read again.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import pino from 'pino';
import {
  createTelegramUpdates,
  WEBHOOK_SET_WAIT_MS,
  type TelegramUpdate,
  type TelegramUpdates,
} from '../../../src/modules/notifications/adapters/telegram-updates.ts';
import { startTelegramBot, type TelegramBot } from '../../fakes/telegram.ts';
import { waitFor } from '../../helpers/wait.ts';

describe('reading the bot’s updates', () => {
  let bot: TelegramBot;
  let reader: TelegramUpdates | undefined;
  before(async () => {
    bot = await startTelegramBot();
  });
  after(() => bot.close());
  beforeEach(async () => {
    await reader?.stop();
    // What the last test's reader read but did not confirm (the next poll's offset would have) is
    // confirmed here, as Telegram is told: a poll with an offset past it, answered at once.
    const confirmed = await fetch(`${bot.url}/bot${bot.token}/getUpdates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ offset: Number.MAX_SAFE_INTEGER, timeout: 0 }),
    });
    assert.equal(confirmed.status, 200);
    assert.equal(bot.pending(), 0);
    bot.polls.length = 0;
  });

  /** A reader whose waits are recorded and end at once: what it waits is asserted, not slept. */
  function read(
    options: {
      onUpdate?: (update: TelegramUpdate) => Promise<void>;
      pollTimeoutS?: number;
      logger?: Pick<pino.Logger, 'warn' | 'error'>;
    } = {},
  ) {
    const seen: TelegramUpdate[] = [];
    const waits: number[] = [];
    reader = createTelegramUpdates({
      token: bot.token,
      apiUrl: bot.url,
      fetch,
      pollTimeoutS: options.pollTimeoutS ?? 30,
      httpMarginMs: 200,
      onUpdate: options.onUpdate ?? (async (update) => void seen.push(update)),
      whileHolding: async (work) => {
        await work(async () => {});
        return true;
      },
      logger: options.logger ?? pino({ level: 'silent' }),
      pause: async (ms) => void waits.push(ms),
    });
    reader.start();
    return { seen, waits };
  }
  const texts = (updates: TelegramUpdate[]) => updates.map((u) => u.message?.text);

  it('answers a waiting poll when a message comes, and confirms it with the next offset', async () => {
    const { seen, waits } = read();
    await waitFor(() => bot.polls.length === 1, 'the first poll waiting');
    const id = bot.sendUpdate('600000001', '/start abc');
    await waitFor(() => seen.length === 1 && bot.pending() === 0, 'the update read and confirmed');
    assert.deepEqual(texts(seen), ['/start abc']);
    assert.deepEqual(bot.polls[0], { offset: 0, timeout: 30, allowed_updates: ['message'] });
    assert.equal(bot.polls.at(-1)!.offset, id + 1);
    assert.deepEqual(waits, [], 'nothing waited');
  });

  it('polls again after a poll that times out with nothing', async () => {
    const { waits } = read({ pollTimeoutS: 1 });
    await waitFor(() => bot.polls.length >= 2, 'a second poll after the empty answer', 10_000);
    assert.deepEqual(waits, []);
  });

  it('survives a 429, a 5xx, a 409 Conflict and a poll that never answers, waiting as each asks', async () => {
    bot.respondNextUpdates(
      {
        status: 429,
        body: { ok: false, error_code: 429, description: 'Too Many Requests', parameters: { retry_after: 7 } },
      },
      { status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } },
      {
        status: 409,
        body: { ok: false, error_code: 409, description: 'Conflict: terminated by other getUpdates request' },
      },
      'hang',
    );
    const { seen, waits } = read({ pollTimeoutS: 1 });
    await waitFor(() => bot.polls.length >= 5, 'a poll after every failure', 10_000);
    bot.sendUpdate('600000002', 'hello');
    await waitFor(() => seen.length === 1, 'the update read after the failures');
    assert.equal(waits.length, 4, `one wait per failure: ${waits}`);
    assert.equal(waits[0], 7_000, "the 429's retry_after");
    // The backoff curve (1 s doubling, jitter 0.5–1), continued across the failures in a row.
    for (const [i, wait] of waits.slice(1).entries())
      assert.ok(wait >= 500 * 2 ** i && wait <= 1_000 * 2 ** i, `wait ${i + 1}: ${wait} ms`);
  });

  it('tells a webhook set on the bot from another reader: one error, polls 5 minutes apart, the webhook kept', async () => {
    bot.setWebhook('https://hooks.example/telegram');
    const logged: { level: string; msg: string }[] = [];
    const logger = {
      warn: (_: object, msg: string) => void logged.push({ level: 'warn', msg }),
      error: (_: object, msg: string) => void logged.push({ level: 'error', msg }),
    } as unknown as Pick<pino.Logger, 'warn' | 'error'>;
    const { seen, waits } = read({ logger });
    await waitFor(() => bot.polls.length >= 3, 'polls refused while the webhook is set');
    bot.setWebhook(undefined);
    bot.sendUpdate('600000004', 'after the webhook');
    await waitFor(
      () => seen.some((u) => u.message?.text === 'after the webhook'),
      'the update read once the webhook is gone',
    );
    assert.ok(waits.length >= 2, `a wait after each refused poll: ${waits}`);
    assert.ok(
      waits.every((ms) => ms === WEBHOOK_SET_WAIT_MS),
      `five minutes each: ${waits}`,
    );
    assert.deepEqual(
      logged.map((l) => l.level),
      ['error'],
      'one error, no warning at each poll',
    );
    assert.match(logged[0]!.msg, /webhook is active.*deleteWebhook/);
    assert.ok(!bot.paths.some((path) => /deleteWebhook|setWebhook/.test(path)), "the operator's webhook is left alone");
  });

  it('reads an update again, once, when its handling failed', async () => {
    let calls = 0;
    const handled: string[] = [];
    const { waits } = read({
      onUpdate: async (update) => {
        calls++;
        if (calls === 1) throw new Error('the database is down');
        handled.push(update.message!.text!);
      },
    });
    bot.sendUpdate('600000003', '/start again');
    await waitFor(() => handled.length === 1 && bot.pending() === 0, 'handled on the second read');
    assert.deepEqual([calls, waits.length], [2, 1]);
  });

  it('stops at once, cutting the poll that waits', async () => {
    read();
    await waitFor(() => bot.polls.length === 1, 'the poll waiting');
    const started = performance.now();
    await reader!.stop();
    assert.ok(performance.now() - started < 5_000, 'the 30 s poll did not hold the stop');
    reader = undefined;
  });
});
