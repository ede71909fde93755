// What a registrant set up on an address nobody verified does not outlive the address owner's first
// sign-in through the identity provider (decisions 734 and 790): exchange keys, signal hooks (whose
// secrets place orders) and notification targets (which would report the owner's fills) go with the
// password, sessions and tokens; an account whose address was verified keeps all of it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startIdentityProvider, type IdentityProvider } from '../../fakes/identity-provider.ts';
import { startTelegramBot, type TelegramBot } from '../../fakes/telegram.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { botEnv, linkTelegram, startUpdates } from '../notifications/telegram-fixtures.ts';

describe("a provider's first link claims what the registrant set up", () => {
  let idp: IdentityProvider;
  let bot: TelegramBot;
  let t: TestApp;
  let admin: TestUser;
  before(async () => {
    idp = await startIdentityProvider();
    bot = await startTelegramBot();
    t = await buildTestApp({
      env: { JWT_JWKS_URL: idp.jwksUrl, ...botEnv(bot) },
    });
    startUpdates(t);
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
    await bot.close();
    await idp.close();
  });

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH',
    url: string,
    headers: Record<string, string>,
    payload?: object,
  ) => t.app.inject({ method, url, headers, payload });

  /** A credential, a signal hook and a Telegram chat on the account, as its registrant would leave them. */
  async function setUp(user: TestUser, chat: string) {
    const credential = await call('POST', '/api/exchange/credentials', user.headers, {
      exchange_name: 'binance',
      api_key: 'registrant-key-0123456789',
      api_secret: 'registrant-secret-0123456789',
    });
    assert.equal(credential.statusCode, 201, credential.body);
    const hook = await call('POST', '/api/signals/hooks', user.headers, { name: 'kept secret' });
    assert.equal(hook.statusCode, 201, hook.body);
    await linkTelegram(t, bot, user, chat);
    const preferences = await call('PUT', '/api/notifications/preferences', user.headers, {
      channels: [{ type: 'telegram', chat_id: chat }],
      events: ['order.filled'],
    });
    assert.equal(preferences.statusCode, 200, preferences.body);
    return { credentialId: credential.json<{ id: string }>().id, hook: hook.json<{ id: string; secret: string }>() };
  }

  /** What the account holds, as its owner reads it through the API. */
  async function holdings(headers: Record<string, string>) {
    const credentials = await call('GET', '/api/exchange/credentials', headers);
    const hooks = await call('GET', '/api/signals/hooks', headers);
    const preferences = await call('GET', '/api/notifications/preferences', headers);
    for (const response of [credentials, hooks, preferences]) assert.equal(response.statusCode, 200, response.body);
    return {
      credentials: credentials.json<{ total_count: number }>().total_count,
      hooks: hooks.json<{ hooks: unknown[] }>().hooks.length,
      channels: preferences.json<{ channels: { type: string }[] }>().channels.map((c) => c.type),
    };
  }

  const alert = (hook: { id: string; secret: string }) =>
    t.app.inject({
      method: 'POST',
      url: `/api/signals/tradingview/${hook.id}`,
      payload: { secret: hook.secret, symbol: 'BTCUSDT', side: 'buy', amount: 0.001 },
    });

  it("removes the registrant's exchange keys, hooks and notification targets, audited with the reason", async () => {
    const squatter = await signIn(t.app, t.database, { email: 'claimed-setup@example.com' });
    const { credentialId, hook } = await setUp(squatter, '700000001');
    assert.deepEqual(await holdings(squatter.headers), { credentials: 1, hooks: 1, channels: ['telegram'] });

    const owner = { authorization: `Bearer ${await idp.issue({ email: 'claimed-setup@example.com' })}` };
    assert.deepEqual(await holdings(owner), { credentials: 0, hooks: 0, channels: ['email'] });
    const refused = await alert(hook);
    assert.ok(
      refused.statusCode === 401 || refused.statusCode === 404,
      `the hook's secret opens nothing: ${refused.body}`,
    );

    const activity = await call('GET', `/api/admin/users/${squatter.id}/activity?limit=100`, admin.headers);
    assert.equal(activity.statusCode, 200, activity.body);
    const entries = activity.json<{ action: string; actor_type: string; target_id: string; details: object }[]>();
    for (const [action, target] of [
      ['exchange.credential.delete', credentialId],
      ['signal_hook.delete', hook.id],
    ] as const) {
      const removal = entries.find((e) => e.action === action && e.target_id === target);
      assert.equal(removal?.actor_type, 'system', action);
      assert.equal((removal?.details as { reason?: string } | undefined)?.reason, 'external_identity_claimed');
    }
  });

  it('an account whose address was verified keeps what it set up when the provider links it', async () => {
    const keeper = await signIn(t.app, t.database, { email: 'verified-setup@example.com' });
    const marked = await call('PATCH', `/api/admin/users/${keeper.id}`, admin.headers, { emailVerified: true });
    assert.equal(marked.statusCode, 200, marked.body);
    const { hook } = await setUp(keeper, '700000002');
    const owner = { authorization: `Bearer ${await idp.issue({ email: 'verified-setup@example.com' })}` };
    assert.deepEqual(await holdings(owner), { credentials: 1, hooks: 1, channels: ['telegram'] });
    assert.deepEqual(await holdings(keeper.headers), { credentials: 1, hooks: 1, channels: ['telegram'] });
    assert.notEqual((await alert(hook)).statusCode, 401);
  });
});
