// Signal hooks (issue 40, point 1): made with a secret shown once and kept hashed, listed without it,
// rotated, removed; another user's hook is not found; tokens need trade:write; live hooks need two-factor.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { codeOf } from '../../helpers/totp-reference.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const URL = '/api/signals/hooks';

describe('signal hooks', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;

  before(async () => {
    t = await buildTestApp({ env: { PUBLIC_URL: 'https://trade.example.com' } });
    alice = await signIn(t.app, t.database);
    bob = await signIn(t.app, t.database);
  });
  after(() => t.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) =>
    t.app.inject({ method, url, headers, payload });
  const make = async (user: TestUser, payload: object = { name: 'trend' }) => {
    const response = await call('POST', URL, user.headers, payload);
    assert.equal(response.statusCode, 201, response.body);
    return response.json<Record<string, unknown> & { id: string; secret: string; url: string }>();
  };

  it('makes a hook with its defaults, a URL and a secret shown once and stored only as a hash', async () => {
    const hook = await make(alice, { name: 'BTC trend' });
    assert.equal(hook.name, 'BTC trend');
    assert.equal(hook.mode, 'paper');
    assert.equal(hook.exchange, 'binance');
    assert.equal(hook.max_lag_seconds, 60);
    assert.equal(hook.allowed_ips, null);
    assert.equal(hook.url, `https://trade.example.com/api/signals/tradingview/${hook.id}`);
    assert.match(hook.secret, /^tvs_[A-Za-z0-9_-]{43}$/);
    const stored = await t.database.rows<{ secret_hash: string }>(
      sql`SELECT secret_hash FROM signal_hooks WHERE id = ${hook.id}`,
    );
    assert.equal(stored.length, 1);
    assert.notEqual(stored[0]!.secret_hash, hook.secret);
    assert.ok(!JSON.stringify(await t.database.rows(sql`SELECT * FROM signal_hooks`)).includes(hook.secret));
    assert.ok(!t.logText().includes(hook.secret), 'the secret is never logged');
    const audited = await t.database.rows(sql`SELECT 1 FROM audit_log WHERE action = 'signal_hook.create'`);
    assert.ok(audited.length >= 1);
  });

  it('lists only the owner’s hooks, with counters and no secret', async () => {
    const mine = await make(bob, {
      name: 'eth',
      exchange: 'Kraken',
      max_lag_seconds: 30,
      allowed_ips: ['52.89.214.238', '10.0.0.0/8'],
    });
    const response = await call('GET', URL, bob.headers);
    assert.equal(response.statusCode, 200, response.body);
    const { hooks } = response.json<{ hooks: Record<string, unknown>[] }>();
    assert.equal(hooks.length, 1);
    assert.deepEqual(hooks[0], {
      id: mine.id,
      name: 'eth',
      mode: 'paper',
      exchange: 'kraken',
      url: mine.url,
      max_lag_seconds: 30,
      allowed_ips: ['52.89.214.238', '10.0.0.0/8'],
      created_at: mine.created_at,
      alerts_accepted: 0,
      alerts_refused: 0,
      last_alert_at: null,
      last_error: null,
    });
    assert.ok(!response.body.includes(mine.secret));
  });

  it('rotates the secret: a new one, shown once; another user’s hook is 404', async () => {
    const hook = await make(alice);
    const rotated = await call('POST', `${URL}/${hook.id}/rotate`, alice.headers);
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.notEqual(rotated.json<{ secret: string }>().secret, hook.secret);
    assertDetail(await call('POST', `${URL}/${hook.id}/rotate`, bob.headers), 404, 'Signal hook not found');
  });

  it('removes a hook (204), then it is gone; another user’s is 404', async () => {
    const hook = await make(alice, { name: 'to remove' });
    assertDetail(await call('DELETE', `${URL}/${hook.id}`, bob.headers), 404);
    const removed = await call('DELETE', `${URL}/${hook.id}`, alice.headers);
    assert.equal(removed.statusCode, 204);
    assert.equal(removed.body, '');
    assertDetail(await call('DELETE', `${URL}/${hook.id}`, alice.headers), 404);
    const { hooks } = (await call('GET', URL, alice.headers)).json<{ hooks: { id: string }[] }>();
    assert.ok(!hooks.some((h) => h.id === hook.id));
  });

  it('refuses a bad body field by field', async () => {
    assertIssue(await call('POST', URL, alice.headers, {}), ['body', 'name'], 'missing');
    assertIssue(await call('POST', URL, alice.headers, { name: 'x', mode: 'real' }), ['body', 'mode'], 'enum');
    assertIssue(
      await call('POST', URL, alice.headers, { name: 'x', max_lag_seconds: 0 }),
      ['body', 'max_lag_seconds'],
      'greater_than_equal',
    );
    assertIssue(
      await call('POST', URL, alice.headers, { name: 'x', allowed_ips: ['1.2.3.4', 'tradingview.com'] }),
      ['body', 'allowed_ips', 1],
      'value_error',
    );
  });

  it('needs a bearer token (401), and an API token with trade:write (403 otherwise)', async () => {
    assertDetail(await call('GET', URL, {}), 401, 'Not authenticated');
    assertDetail(await call('POST', URL, {}, { name: 'x' }), 401, 'Not authenticated');
    const token = async (scopes: string[]) => {
      const response = await call('POST', '/api/auth/tokens', alice.headers, { name: scopes.join(' '), scopes });
      assert.equal(response.statusCode, 201, response.body);
      return { authorization: `Bearer ${response.json<{ token: string }>().token}` };
    };
    const reader = await token(['trade:read', 'account:read']);
    assert.equal((await call('GET', URL, reader)).statusCode, 403);
    const writer = await token(['trade:write']);
    assert.equal((await call('GET', URL, writer)).statusCode, 200);
    assert.equal((await call('POST', URL, writer, { name: 'bot' })).statusCode, 201);
  });

  it('makes a live hook only for an account with two-factor on (403 otherwise)', async () => {
    assertDetail(
      await call('POST', URL, alice.headers, { name: 'live', mode: 'live' }),
      403,
      'A live signal hook needs two-factor authentication on your account',
    );
    const carol = await signIn(t.app, t.database);
    const setup = await call('POST', '/api/auth/2fa/setup', carol.headers, { password: carol.password });
    assert.equal(setup.statusCode, 200, setup.body);
    const enable = await call('POST', '/api/auth/2fa/enable', carol.headers, {
      code: codeOf(setup.json<{ secret: string }>().secret),
    });
    assert.equal(enable.statusCode, 200, enable.body);
    // The code that turned it on is a fresh second factor, which tokens carry from the next refresh (decision 680).
    const refreshed = await call('POST', '/api/auth/refresh', {}, { refresh_token: carol.refreshToken });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    const fresh = {
      ...carol,
      headers: { authorization: `Bearer ${refreshed.json<{ access_token: string }>().access_token}` },
    };
    const hook = await make(fresh, { name: 'live', mode: 'live' });
    assert.equal(hook.mode, 'live');
  });
});
