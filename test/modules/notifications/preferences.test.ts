// Users' own notifications (issue 40, point 3): preferences read and replaced, chat ids and webhook URLs
// sealed at rest, the test send on every channel (mail, Telegram through the Bot API fake, a Slack- or
// Discord-style webhook), account events the user chose sent once, and Telegram's and the webhook's
// failures sorted for the outbox.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { startChatReceiver, type ChatReceiver } from '../../fakes/chat-webhook.ts';
import { startTelegramBot, type TelegramBot } from '../../fakes/telegram.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import { botEnv, linkTelegram, startUpdates } from './telegram-fixtures.ts';

const URL = '/api/notifications/preferences';

describe('notification preferences', () => {
  let t: TestApp;
  let bot: TelegramBot;
  let slack: ChatReceiver;
  let alice: TestUser;
  let bob: TestUser;
  /** A chat of its own for each test: Telegram allows one message a second per chat. */
  let CHAT = '';
  let chats = 900_000_000;

  before(async () => {
    // Each test links its chat (the bot says so there) and then sends: Telegram's one message a second
    // per chat is lifted here; its 429 is answered on purpose below.
    bot = await startTelegramBot({ perChatIntervalMs: 0 });
    slack = await startChatReceiver({ flavor: 'slack' });
    t = await buildTestApp({
      env: { ...botEnv(bot), NOTIFY_ALLOW_PRIVATE_URLS: 'true' },
    });
    startUpdates(t);
    alice = await signIn(t.app, t.database);
    bob = await signIn(t.app, t.database);
  });
  after(async () => {
    await t.close();
    await bot.close();
    await slack.close();
  });
  beforeEach(async () => {
    await t.platform.outbox.drain();
    await t.database.db.execute(sql`DELETE FROM outbox`);
    await t.database.db.execute(sql`DELETE FROM notification_preferences`);
    await t.database.db.execute(sql`DELETE FROM trading_halts`);
    bot.sent.length = 0;
    CHAT = String(chats++);
    slack.received.length = 0;
  });

  /** Links CHAT to the user through the bot (decision 860); the bot's word that it did is sent and forgotten. */
  async function linked(user: TestUser) {
    await linkTelegram(t, bot, user, CHAT);
    await t.platform.outbox.drain();
    await t.database.db.execute(sql`DELETE FROM outbox`);
    bot.sent.length = 0;
  }

  const put = (user: TestUser, payload: object) =>
    t.app.inject({ method: 'PUT', url: URL, headers: user.headers, payload });
  const everything = () => ({
    channels: [
      { type: 'email' },
      { type: 'telegram', chat_id: CHAT },
      { type: 'webhook', url: `${slack.url}/services/T1/B1/tok3n`, format: 'slack' },
    ],
    events: ['order.filled', 'order.rejected', 'order.canceled', 'signal.refused', 'trading.halted', 'daily_loss'],
  });
  const outboxRows = (kind: string) =>
    t.database.rows<{
      status: string;
      last_error: string | null;
      result: string | null;
      payload: Record<string, unknown>;
    }>(sql`SELECT status, last_error, result, payload FROM outbox WHERE kind = ${kind} ORDER BY created_at`);

  it('answers the defaults until the user chooses: mail, about what needs attention', async () => {
    const response = await t.app.inject({ method: 'GET', url: URL, headers: alice.headers });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      channels: [{ type: 'email' }],
      events: ['order.rejected', 'signal.refused', 'trading.halted', 'daily_loss'],
    });
  });

  it('replaces the channels and events; the chat id and URL are sealed at rest and the URL shown by its origin', async () => {
    await linked(alice);
    const saved = await put(alice, everything());
    assert.equal(saved.statusCode, 200, saved.body);
    const origin = new globalThis.URL(slack.url).origin;
    const expected = {
      channels: [
        { type: 'email' },
        { type: 'telegram', chat_id: CHAT, linked: true },
        { type: 'webhook', url: `${origin}/…`, format: 'slack' },
      ],
      events: everything().events,
    };
    assert.deepEqual(saved.json(), expected);
    assert.deepEqual((await t.app.inject({ method: 'GET', url: URL, headers: alice.headers })).json(), expected);
    const stored = JSON.stringify(await t.database.rows(sql`SELECT * FROM notification_preferences`));
    assert.ok(!stored.includes(CHAT) && !stored.includes('tok3n'), 'sealed at rest');
    assert.ok(!t.logText().includes('tok3n'), 'the URL is never logged');
    // Sent back as shown, the stored URL is kept.
    const again = await put(alice, { channels: expected.channels, events: ['order.filled'] });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: alice.headers })).statusCode,
      202,
    );
    await t.platform.outbox.drain();
    assert.equal(slack.received.length, 1);
  });

  it('keeps two webhooks on one host apart: sent back as shown, each keeps its own URL', async () => {
    // A user of its own: each user's test sends are bounded per minute.
    const carol = await signIn(t.app, t.database);
    const hooks = [`${slack.url}/services/T1/B1/first`, `${slack.url}/services/T1/B2/second`];
    const saved = await put(carol, {
      channels: hooks.map((url) => ({ type: 'webhook', url, format: 'slack' })),
      events: [],
    });
    assert.equal(saved.statusCode, 200, saved.body);
    const shown = saved.json<{ channels: { url: string }[] }>().channels;
    assert.equal(shown[0]!.url, shown[1]!.url, 'both are shown by the same origin');

    // Only the events change; the channels go back exactly as they were shown.
    const again = await put(carol, { channels: shown, events: ['order.filled'] });
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json<{ channels: unknown }>().channels, shown);
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: carol.headers })).statusCode,
      202,
    );
    await t.platform.outbox.drain();
    assert.deepEqual(
      slack.received.map((r) => r.path).sort(),
      hooks.map((url) => new globalThis.URL(url).pathname),
    );
  });

  it('refuses a shown webhook URL that cannot say which saved webhook it keeps, or that none is left for', async () => {
    const carol = await signIn(t.app, t.database);
    const hooks = [`${slack.url}/services/T1/B1/first`, `${slack.url}/services/T1/B2/second`];
    const saved = await put(carol, {
      channels: hooks.map((url) => ({ type: 'webhook', url, format: 'slack' })),
      events: [],
    });
    const shown = saved.json<{ channels: { url: string }[] }>().channels;

    // One of two shown alike: keeping it could keep either URL, and the other would go on being told.
    const one = assertIssue(
      await put(carol, { channels: [shown[1]], events: [] }),
      ['body', 'channels', 0, 'url'],
      'value_error',
    );
    assert.match(one.msg, /2 webhooks on .* are saved/);
    assert.equal(one.input, shown[1]!.url);
    const kept = await t.app.inject({ method: 'GET', url: URL, headers: carol.headers });
    assert.deepEqual(kept.json<{ channels: unknown }>().channels, shown, 'nothing was changed');

    // The one to keep, by its full URL: the other one is removed.
    assert.equal((await put(carol, { channels: [{ type: 'webhook', url: hooks[1] }], events: [] })).statusCode, 200);
    await t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: carol.headers });
    await t.platform.outbox.drain();
    assert.deepEqual(
      slack.received.map((r) => r.path),
      [new globalThis.URL(hooks[1]!).pathname],
    );

    // A shown URL beyond the webhooks saved on its host stands for none of them.
    assertIssue(
      await put(carol, { channels: [shown[0], shown[0]], events: [] }),
      ['body', 'channels', 1, 'url'],
      'value_error',
    );
    const dave = await signIn(t.app, t.database);
    const none = assertIssue(
      await put(dave, { channels: [shown[0]], events: [] }),
      ['body', 'channels', 0, 'url'],
      'value_error',
    );
    assert.match(none.msg, /full URL/);
  });

  it('refuses channels without what their type needs, and unknown events, field by field', async () => {
    assertIssue(
      await put(alice, { channels: [{ type: 'telegram' }], events: [] }),
      ['body', 'channels', 0, 'chat_id'],
      'missing',
    );
    assertIssue(
      await put(alice, { channels: [{ type: 'telegram', chat_id: 'me; DROP' }], events: [] }),
      ['body', 'channels', 0, 'chat_id'],
      'value_error',
    );
    assertIssue(
      await put(alice, { channels: [{ type: 'email' }, { type: 'webhook' }], events: [] }),
      ['body', 'channels', 1, 'url'],
      'missing',
    );
    assertIssue(await put(alice, { channels: [{ type: 'sms' }], events: [] }), ['body', 'channels', 0, 'type'], 'enum');
    assertIssue(await put(alice, { channels: [], events: ['order.exploded'] }), ['body', 'events', 0], 'enum');
    assertIssue(await put(alice, { channels: [] }), ['body', 'events'], 'missing');
  });

  it('needs a bearer token (401), and an API token with account:write to change them (403 otherwise)', async () => {
    assertDetail(await t.app.inject({ method: 'GET', url: URL }), 401, 'Not authenticated');
    assertDetail(await t.app.inject({ method: 'POST', url: '/api/notifications/test' }), 401, 'Not authenticated');
    const token = async (scopes: string[]) => {
      const made = await t.app.inject({
        method: 'POST',
        url: '/api/auth/tokens',
        headers: bob.headers,
        payload: { name: 'n', scopes },
      });
      assert.equal(made.statusCode, 201, made.body);
      return { authorization: `Bearer ${made.json<{ token: string }>().token}` };
    };
    const reader = await token(['account:read']);
    assert.equal((await t.app.inject({ method: 'GET', url: URL, headers: reader })).statusCode, 200);
    assert.equal(
      (await t.app.inject({ method: 'PUT', url: URL, headers: reader, payload: everything() })).statusCode,
      403,
    );
  });

  it('sends a test notification on every channel: mail, Telegram and the webhook', async () => {
    await linked(alice);
    // Mail goes only to a verified address (decision 840).
    await t.modules.admin.users.updateUser(alice.id, { emailVerified: true }, { id: null });
    assert.equal((await put(alice, everything())).statusCode, 200);
    const response = await t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: alice.headers });
    assert.equal(response.statusCode, 202, response.body);
    assert.deepEqual(response.json(), { queued: 3 });
    await t.platform.outbox.drain();
    assert.deepEqual(
      bot.sent.map((m) => m.chatId),
      [CHAT],
    );
    assert.match(bot.sent[0]!.text, /^Test notification\n/);
    assert.equal(slack.received.length, 1);
    assert.match(JSON.stringify(slack.received[0]!.body), /Test notification/);
    const [mail] = await outboxRows('mail.send');
    assert.equal(mail!.payload.to, alice.email);
    assert.equal(mail!.payload.subject, 'Test notification');
    const notify = await outboxRows('notify.send');
    assert.deepEqual(
      notify.map((row) => row.status),
      ['done', 'done'],
    );
    assert.ok(
      !JSON.stringify(notify).includes(CHAT) && !JSON.stringify(notify).includes('tok3n'),
      'rows carry no destination',
    );
  });

  it('tells the user of an event they chose, once, and not of one they did not', async () => {
    await linked(alice);
    await linked(bob);
    assert.equal(
      (await put(alice, { channels: [{ type: 'telegram', chat_id: CHAT }], events: ['trading.halted'] })).statusCode,
      200,
    );
    assert.equal(
      (await put(bob, { channels: [{ type: 'telegram', chat_id: CHAT }], events: ['order.filled'] })).statusCode,
      200,
    );
    const halt = (user: TestUser) =>
      t.app.inject({ method: 'POST', url: '/api/trading/halt', headers: user.headers, payload: { reason: 'holiday' } });
    assert.equal((await halt(alice)).statusCode, 200);
    assert.equal((await halt(bob)).statusCode, 200);
    await waitFor(async () => (await outboxRows('notify.send')).length >= 1, 'the halt notification queued');
    await t.platform.outbox.drain();
    assert.equal(bot.sent.length, 1, 'only alice chose trading.halted');
    assert.match(bot.sent[0]!.text, /^Trading halted\nholiday/);
  });

  it('waits out a Telegram 429 without spending an attempt, and gives up on a chat that blocked the bot', async () => {
    // A user of its own: each user's test sends are bounded per minute.
    const alice = await signIn(t.app, t.database);
    await linked(alice);
    bot.respondNext({
      status: 429,
      body: {
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 7',
        parameters: { retry_after: 7 },
      },
    });
    await t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: alice.headers });
    await t.platform.outbox.runOnce();
    const [waiting] = await t.database.rows<{ status: string; attempts: number; last_error: string }>(
      sql`SELECT status, attempts, last_error FROM outbox WHERE kind = 'notify.send'`,
    );
    assert.deepEqual([waiting!.status, Number(waiting!.attempts)], ['pending', 0]);
    assert.match(waiting!.last_error, /HTTP 429/);
    assert.ok(!waiting!.last_error.includes(bot.token), 'the bot token is never in an error');

    await t.database.db.execute(sql`DELETE FROM outbox`);
    bot.respondNext({
      status: 403,
      body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' },
    });
    await t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: alice.headers });
    await t.platform.outbox.drain();
    // Finished, not retried, and the chat unlinked (decision 861).
    const [given] = await outboxRows('notify.send');
    assert.equal(given!.status, 'done');
    assert.match(given!.result ?? '', /blocked by the user; the chat is no longer linked/);
  });

  it('does not follow a webhook redirect, and retries a receiver error', async () => {
    const alice = await signIn(t.app, t.database);
    assert.equal(
      (await put(alice, { channels: [{ type: 'webhook', url: `${slack.url}/hook`, format: 'discord' }], events: [] }))
        .statusCode,
      200,
    );
    slack.respondNext({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data' } });
    await t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: alice.headers });
    await t.platform.outbox.drain();
    const [refused] = await outboxRows('notify.send');
    assert.equal(refused!.status, 'dead');
    assert.match(refused!.last_error ?? '', /redirects are refused/);
    assert.equal(slack.received.length, 1, 'the redirect was not followed');

    await t.database.db.execute(sql`DELETE FROM outbox`);
    slack.respondNext({ status: 503, body: 'down' });
    await t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: alice.headers });
    await t.platform.outbox.runOnce();
    const [retrying] = await outboxRows('notify.send');
    assert.equal(retrying!.status, 'pending');
  });

  it('bounds test sends per user: past three a minute 429 with Retry-After, and nothing queued', async () => {
    // Chat ids and addresses are nobody's proven own: a loop of test sends would flood them through our bot.
    const carol = await signIn(t.app, t.database);
    await linked(carol);
    assert.equal((await put(carol, { channels: [{ type: 'telegram', chat_id: CHAT }], events: [] })).statusCode, 200);
    const send = (user: TestUser) =>
      t.app.inject({ method: 'POST', url: '/api/notifications/test', headers: user.headers });
    for (let i = 0; i < 3; i++) assert.equal((await send(carol)).statusCode, 202);
    const queued = (await outboxRows('notify.send')).length;
    const refused = await send(carol);
    assertDetail(refused, 429);
    assert.match(
      refused.json<{ detail: string }>().detail,
      /^At most 3 test notifications a minute; try again in \d+ s$/,
    );
    assert.ok(Number(refused.headers['retry-after']) >= 1 && Number(refused.headers['retry-after']) <= 60);
    assert.equal((await outboxRows('notify.send')).length, queued, 'the refused send queued nothing');
    assert.equal((await send(bob)).statusCode, 202, "another user's sends are counted apart");
  });
});
