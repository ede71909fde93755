// Scoped API tokens (issue 23, decision 144): made once and shown once, used as a bearer token
// within their scopes only, never above their owner, revoked at once on every instance.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { API_TOKEN_SCOPES } from '../../../src/platform/auth/scopes.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

describe('API tokens', () => {
  let t: TestApp;
  let second: TestApp;
  let admin: TestUser;
  before(async () => {
    // Two instances on one database (and, with REDIS_URL, one Redis), as two servers behind a balancer.
    const prefix = `test:tokens:${process.pid}:`;
    t = await buildTestApp({ cachePrefix: prefix });
    second = await buildTestApp({ cachePrefix: prefix, keepData: true });
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await second.close();
    await t.close();
  });

  const call = (app: TestApp, method: string, url: string, token: string | undefined, payload?: unknown) =>
    app.app.inject({
      method: method as 'GET',
      url,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      payload: payload as object,
    });
  const make = async (user: TestUser, body: Record<string, unknown>) => {
    const response = await call(t, 'POST', '/api/auth/tokens', user.token, body);
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{
      id: string;
      token: string;
      prefix: string;
      scopes: string[];
      expires_at: string;
      created_at: string;
      name: string;
    }>();
  };

  it('answers the token once, stores its hash only, and lists it without the token', async () => {
    const user = await signIn(t.app, t.database);
    const created = await make(user, { name: 'my bot', scopes: ['account:read', 'market:read'] });
    assert.match(created.token, /^tpk_[A-Za-z0-9_-]{43}$/);
    assert.equal(created.prefix, created.token.slice(0, 12));
    assert.deepEqual(created.scopes, ['account:read', 'market:read']);
    assert.equal(
      new Date(created.expires_at).getTime() - new Date(created.created_at).getTime(),
      90 * 86_400_000,
      '90 days by default',
    );
    const stored = await t.database.rows<{ token_hash: string }>(
      sql`SELECT token_hash FROM api_tokens WHERE id = ${created.id}`,
    );
    assert.notEqual(stored[0]!.token_hash, created.token);
    assert.ok(!t.logText().includes(created.token), 'the token is never logged');

    const listed = await call(t, 'GET', '/api/auth/tokens', user.token);
    assert.equal(listed.statusCode, 200);
    const [entry] = listed.json<Record<string, unknown>[]>();
    assert.deepEqual(Object.keys(entry!).sort(), [
      'created_at',
      'expires_at',
      'id',
      'last_used_at',
      'name',
      'prefix',
      'scopes',
    ]);
    assert.equal(entry!.last_used_at, null);

    assert.equal((await call(t, 'GET', '/api/auth/me', created.token)).json().id, user.id, 'used as a bearer token');
    assert.notEqual(
      (await call(t, 'GET', '/api/auth/tokens', user.token)).json()[0].last_used_at,
      null,
      'its use is recorded',
    );
  });

  it('allows what its scopes allow and answers 403 naming the missing scope', async () => {
    const user = await signIn(t.app, t.database);
    const reader = await make(user, { name: 'reader', scopes: ['account:read'], expires_in_days: 1 });
    assert.equal((await call(t, 'GET', '/api/exchange/credentials', reader.token)).statusCode, 200);
    const write = await call(t, 'POST', '/api/exchange/credentials', reader.token, {
      exchange_name: 'binance',
      api_key: 'token-key-00001',
      api_secret: 'token-secret-001',
    });
    assertDetail(write, 403, 'This API token lacks the scope account:write');
    assertDetail(
      await call(t, 'GET', '/api/v1/tracker/issues', reader.token),
      403,
      'This API token lacks the scope tracker:read',
    );

    const writer = await make(user, { name: 'writer', scopes: ['account:write'] });
    assert.equal(
      (
        await call(t, 'POST', '/api/exchange/credentials', writer.token, {
          exchange_name: 'binance',
          api_key: 'token-key-00001',
          api_secret: 'token-secret-001',
        })
      ).statusCode,
      201,
    );
  });

  it('cannot manage tokens, passwords or two-factor', async () => {
    const user = await signIn(t.app, t.database);
    const all = await make(user, {
      name: 'everything a user may',
      scopes: ['market:read', 'account:read', 'account:write', 'stream:read', 'tracker:read', 'tracker:write'],
    });
    const refused = [
      ['POST', '/api/auth/tokens', { name: 'child', scopes: ['account:read'] }],
      ['GET', '/api/auth/tokens', undefined],
      ['DELETE', `/api/auth/tokens/${all.id}`, undefined],
      ['POST', '/api/auth/password', { current_password: user.password, new_password: 'another password 2' }],
      ['POST', '/api/auth/2fa/setup', { password: user.password }],
      ['POST', '/api/auth/logout', undefined],
    ] as const;
    for (const [method, url, body] of refused) {
      const response = await call(t, method, url, all.token, body);
      assert.equal(response.statusCode, 403, `${method} ${url}: ${response.body}`);
      assert.match(response.json().detail, /API tokens cannot be used for this operation/);
    }
  });

  it('never exceeds its owner: admin scopes for admins only, and a demoted owner loses them at once', async () => {
    const user = await signIn(t.app, t.database);
    assertIssue(
      await call(t, 'POST', '/api/auth/tokens', user.token, { name: 'x', scopes: ['admin:read'] }),
      ['body', 'scopes'],
      'value_error',
    );
    const other = await signIn(t.app, t.database, { role: 'admin' });
    const token = await make(other, { name: 'ops', scopes: ['admin:read'] });
    assert.equal((await call(second, 'GET', '/api/admin/users', token.token)).statusCode, 200);
    assert.equal(
      (await call(t, 'PATCH', `/api/admin/users/${other.id}`, admin.token, { role: 'user' })).statusCode,
      200,
    );
    // Its only scope gone for good, the token is revoked (decision 201).
    assertDetail(
      await call(second, 'GET', '/api/admin/users', token.token),
      401,
      'Invalid, revoked or expired API token',
    );
  });

  it("a suspended owner's tokens stop working at once, on the other instance too", async () => {
    const user = await signIn(t.app, t.database);
    const token = await make(user, { name: 'bot', scopes: ['account:read'] });
    assert.equal((await call(second, 'GET', '/api/exchange/credentials', token.token)).statusCode, 200);
    assert.equal(
      (await call(t, 'PATCH', `/api/admin/users/${user.id}`, admin.token, { status: 'suspended' })).statusCode,
      200,
    );
    assertDetail(await call(second, 'GET', '/api/exchange/credentials', token.token), 403, 'User account is suspended');
  });

  it('a revoked token is refused at once on every instance; revoking it again is a 404', async () => {
    const user = await signIn(t.app, t.database);
    const token = await make(user, { name: 'bot', scopes: ['account:read'] });
    assert.equal((await call(second, 'GET', '/api/exchange/credentials', token.token)).statusCode, 200);
    assert.equal((await call(t, 'DELETE', `/api/auth/tokens/${token.id}`, user.token)).statusCode, 204);
    assertDetail(
      await call(second, 'GET', '/api/exchange/credentials', token.token),
      401,
      'Invalid, revoked or expired API token',
    );
    assertDetail(await call(t, 'GET', '/api/exchange/credentials', token.token), 401);
    assertDetail(await call(t, 'DELETE', `/api/auth/tokens/${token.id}`, user.token), 404, 'API token not found');
    assert.deepEqual((await call(t, 'GET', '/api/auth/tokens', user.token)).json(), []);
    const audited = await t.database.rows(
      sql`SELECT 1 FROM audit_log WHERE action = 'auth.api_token.revoke' AND target_id = ${token.id}`,
    );
    assert.equal(audited.length, 1);
  });

  it("refuses another user's token id (404), bad bodies (422) and requests without a session (401)", async () => {
    const owner = await signIn(t.app, t.database);
    const stranger = await signIn(t.app, t.database);
    const token = await make(owner, { name: 'bot', scopes: ['market:read'] });
    assertDetail(await call(t, 'DELETE', `/api/auth/tokens/${token.id}`, stranger.token), 404);
    assertDetail(await call(t, 'DELETE', '/api/auth/tokens/not-a-uuid', stranger.token), 404);
    assertIssue(
      await call(t, 'POST', '/api/auth/tokens', owner.token, { name: 'x', scopes: ['root'] }),
      ['body', 'scopes', 0],
      'enum',
    );
    assertIssue(
      await call(t, 'POST', '/api/auth/tokens', owner.token, {
        name: 'x',
        scopes: ['market:read'],
        expires_in_days: 366,
      }),
      ['body', 'expires_in_days'],
      'less_than_equal',
    );
    assertIssue(
      await call(t, 'POST', '/api/auth/tokens', owner.token, { name: 'x', scopes: [] }),
      ['body', 'scopes'],
      'too_short',
    );
    for (const [method, url] of [
      ['POST', '/api/auth/tokens'],
      ['GET', '/api/auth/tokens'],
      ['DELETE', `/api/auth/tokens/${token.id}`],
    ] as const) {
      assertDetail(
        await call(t, method, url, undefined, method === 'POST' ? { name: 'x', scopes: ['market:read'] } : undefined),
        401,
      );
    }
    assertDetail(await call(t, 'GET', '/api/auth/me', 'tpk_made-up-token'), 401);
  });

  it("names each operation's scope in the OpenAPI document", async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, Record<string, unknown>>>;
    }>();
    assert.deepEqual(document.paths['/api/exchange/credentials']!.get!['x-scopes'], ['account:read']);
    assert.deepEqual(document.paths['/api/exchange/credentials']!.post!['x-scopes'], ['account:write']);
    assert.deepEqual(document.paths['/api/admin/users']!.get!['x-scopes'], ['admin:read']);
    assert.deepEqual(document.paths['/api/auth/tokens']!.post!['x-scopes'], [], 'tokens cannot make tokens');
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const scopes = operation['x-scopes'] as string[] | undefined;
        if (operation.security && JSON.stringify(operation.security).includes('bearerAuth'))
          assert.ok(Array.isArray(scopes), `${method} ${path} names its scope`);
        for (const scope of scopes ?? []) assert.ok((API_TOKEN_SCOPES as readonly string[]).includes(scope));
      }
    }
    assert.deepEqual(document.paths['/api/exchange/markets']!.get!['x-scopes'], ['market:read']);
    assert.deepEqual(document.paths['/api/auth/2fa/disable']!.post!['x-scopes'], [], 'two-factor needs a session');
  });
});
