// Tokens of an external identity provider (JWT_JWKS_URL): verified against its published keys,
// issuer and audience; the account, its status and its role are ours.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { loadConfig } from '../../../src/config/config.ts';
import { startIdentityProvider, type IdentityProvider } from '../../fakes/identity-provider.ts';
import { closedPort } from '../../helpers/ports.ts';
import { buildTestApp, newClientAddress, signIn, TEST_JWT_SECRET, type TestApp } from '../../helpers/test-app.ts';

describe('external identity provider tokens', () => {
  let idp: IdentityProvider;
  let t: TestApp;
  before(async () => {
    idp = await startIdentityProvider();
    t = await buildTestApp({
      env: { JWT_JWKS_URL: idp.jwksUrl },
      routes: async (app) => {
        app.get('/test/admin-only', { onRequest: app.guards.requireAdmin, schema: { hide: true } }, async () => ({
          ok: true,
        }));
      },
    });
  });
  after(async () => {
    await t.close();
    await idp.close();
  });

  const me = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
  const assertRefused = async (token: string, detail: string) => {
    const response = await me(token);
    assert.equal(response.statusCode, 401, response.body);
    assert.deepEqual(response.json(), { detail });
    assert.match(String(response.headers['www-authenticate']), /^Bearer error="invalid_token"/);
  };

  it('accepts RS256 and ES256 tokens for the account with that e-mail', async () => {
    const user = await signIn(t.app, t.database, { email: 'trader@example.com' });
    for (const alg of ['RS256', 'ES256'] as const) {
      const response = await me(await idp.issue({ email: 'Trader@Example.com', alg }));
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json<{ id: string }>().id, user.id);
      assert.equal(response.headers['cache-control'], 'no-store');
    }
  });

  it('takes the role from our account, never from the token', async () => {
    await signIn(t.app, t.database, { email: 'plain@example.com' });
    const token = await idp.issue({ email: 'plain@example.com', claims: { role: 'admin', user_role: 'admin' } });
    const response = await t.app.inject({
      method: 'GET',
      url: '/test/admin-only',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.statusCode, 403);
    assert.deepEqual(response.json(), { detail: 'Admin role required' });

    const admin = await signIn(t.app, t.database, { email: 'boss@example.com', role: 'admin' });
    const adminToken = await idp.issue({ email: admin.email });
    assert.equal(
      (
        await t.app.inject({
          method: 'GET',
          url: '/test/admin-only',
          headers: { authorization: `Bearer ${adminToken}` },
        })
      ).statusCode,
      200,
    );
  });

  it('refuses forged, foreign, expired, anonymous and e-mail-less tokens with 401', async () => {
    await signIn(t.app, t.database, { email: 'victim@example.com' });
    const email = 'victim@example.com';
    await assertRefused(await idp.issue({ email, signWithForeignKey: true }), 'Invalid or expired token');
    await assertRefused(await idp.issue({ email, alg: 'ES256', signWithForeignKey: true }), 'Invalid or expired token');
    await assertRefused(await idp.issue({ email, expiresInSeconds: -60 }), 'Invalid or expired token');
    await assertRefused(
      await idp.issue({ email, claims: { iss: 'https://evil.example.com/auth/v1' } }),
      'Invalid or expired token',
    );
    await assertRefused(await idp.issue({ email, claims: { is_anonymous: true } }), 'Invalid or expired token');
    await assertRefused(await idp.issue({ claims: { email: undefined } }), 'Invalid or expired token');
    await assertRefused(await idp.issue({ email, claims: { exp: undefined } }), 'Invalid or expired token');
    // An HS256 token signed with our own secret but claiming the provider's identity is not ours either.
    const hs = await new SignJWT({ email })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('x')
      .setIssuer(idp.issuer)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(TEST_JWT_SECRET));
    await assertRefused(hs, 'Invalid or expired token');
  });

  it('links only an address the provider verified', async () => {
    const user = await signIn(t.app, t.database, { email: 'unverified@example.com' });
    const unverified = { user_metadata: { email: user.email, email_verified: false }, email_verified: undefined };
    await assertRefused(
      await idp.issue({ email: user.email, claims: unverified }),
      'The identity provider has not verified this e-mail address',
    );
    // The user writes their own metadata (supabase.auth.updateUser({data})): it proves nothing (decision 900).
    for (const claims of [
      { user_metadata: { email: user.email, email_verified: true }, email_verified: undefined },
      { user_metadata: { email_verified: true }, email_verified: 'true' },
    ]) {
      await assertRefused(
        await idp.issue({ email: user.email, claims }),
        'The identity provider has not verified this e-mail address',
      );
    }
    const oidc = await idp.issue({ email: user.email, claims: { user_metadata: {}, email_verified: true } });
    assert.equal((await me(oidc)).json().id, user.id, "the provider's own email_verified is enough");
  });

  it('finds a linked identity by its subject: a new address at the provider moves nothing', async () => {
    const owner = await signIn(t.app, t.database, { email: 'owner@example.com' });
    const other = await signIn(t.app, t.database, { email: 'other@example.com' });
    const first = await idp.issue({ email: owner.email });
    assert.equal((await me(first)).json().id, owner.id, 'linked by the verified address');
    const subject = JSON.parse(Buffer.from(first.split('.')[1]!, 'base64url').toString()).sub as string;
    // The provider's user now claims the other account's address: it is still the owner.
    const moved = await idp.issue({
      email: owner.email,
      claims: { sub: subject, email: other.email, email_verified: true },
    });
    const answer = await me(moved);
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(answer.json().id, owner.id);
    // Another of the provider's users with the owner's address cannot take the linked account over.
    const impostor = await idp.issue({ email: owner.email, claims: { sub: 'another-subject-of-the-provider' } });
    await assertRefused(impostor, 'This account is linked to another identity of this provider');
  });

  it("an address nobody verified: the provider's first link ends the registrant's password and sessions", async () => {
    // Account pre-hijacking (decision 734): someone registers the victim's address on the open sign-up,
    // keeps a session and an API token, and waits for the victim's first sign-in at the provider.
    const squatter = await signIn(t.app, t.database, { email: 'pre-hijacked@example.com' });
    const apiToken = await t.app.inject({
      method: 'POST',
      url: '/api/auth/tokens',
      headers: squatter.headers,
      payload: { name: 'kept', scopes: ['account:read'] },
    });
    assert.equal(apiToken.statusCode, 201, apiToken.body);
    const squatterToken = apiToken.json<{ token: string }>().token;
    assert.equal((await me(squatterToken)).statusCode, 200);
    const victim = await me(await idp.issue({ email: 'pre-hijacked@example.com' }));
    assert.equal(victim.statusCode, 200, victim.body);
    assert.equal(victim.json<{ id: string }>().id, squatter.id, "the account is the address owner's now");
    assert.equal(victim.json<{ emailVerified: boolean }>().emailVerified, true);
    assert.equal((await me(squatter.token)).statusCode, 401, "the registrant's session is ended");
    assert.equal((await me(squatterToken)).statusCode, 401, 'and its API token');
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: squatter.email, password: squatter.password },
      remoteAddress: newClientAddress(),
    });
    assert.equal(login.statusCode, 401, 'the password it chose opens nothing');
  });

  it('an address the operator vouched for (command line, ADMIN_EMAIL, an admin) links and keeps its password', async () => {
    const created = await t.modules.auth.service.createUser(
      { email: 'made-by-cli@example.com', password: 'a-long-cli-password' },
      { role: 'user', actor: 'system' },
    );
    const marked = await signIn(t.app, t.database, { email: 'marked@example.com' });
    await t.modules.admin.users.updateUser(marked.id, { emailVerified: true }, { id: null });
    for (const [email, id] of [
      [created.email, created.id],
      [marked.email, marked.id],
    ] as const) {
      const linked = await me(await idp.issue({ email }));
      assert.equal(linked.json<{ id: string }>().id, id, linked.body);
    }
    assert.equal((await me(marked.token)).statusCode, 200, 'its session goes on');
    for (const user of [
      { email: created.email, password: 'a-long-cli-password' },
      { email: marked.email, password: marked.password },
    ]) {
      const login = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: user,
        remoteAddress: newClientAddress(),
      });
      assert.equal(login.statusCode, 200, login.body);
    }
  });

  it('refuses a valid token for an e-mail we do not know', async () => {
    await assertRefused(await idp.issue({ email: 'stranger@example.com' }), 'No account matches this identity');
  });

  it('answers 403 for a suspended account, as for our own tokens', async () => {
    const user = await signIn(t.app, t.database, { email: 'paused@example.com' });
    const admin = await signIn(t.app, t.database, { role: 'admin' });
    const suspended = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${user.id}`,
      payload: { status: 'suspended' },
      headers: admin.headers,
    });
    assert.equal(suspended.json().status, 'suspended');
    const response = await me(await idp.issue({ email: user.email }));
    assert.equal(response.statusCode, 403);
    assert.deepEqual(response.json(), { detail: 'User account is suspended' });
  });

  it('keeps accepting our own tokens next to the provider’s', async () => {
    const user = await signIn(t.app, t.database);
    assert.equal((await me(user.token)).statusCode, 200);
  });

  it('logs out without touching our sessions: the provider owns its session', async () => {
    const user = await signIn(t.app, t.database, { email: 'leaver@example.com' });
    // An address an admin marked verified: linking it ends nothing (decision 734).
    await t.modules.admin.users.updateUser(user.id, { emailVerified: true }, { id: null });
    const token = await idp.issue({ email: user.email });
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { success: true });
    assert.equal((await me(user.token)).statusCode, 200, 'the password session is still live');
    const admin = await signIn(t.app, t.database, { role: 'admin' });
    const activity = await t.app.inject({
      method: 'GET',
      url: `/api/admin/users/${user.id}/activity?limit=100`,
      headers: admin.headers,
    });
    const rows = (activity.json() as { action: string; actor_id: string }[]).filter(
      (e) => e.action === 'auth.logout' && e.actor_id === user.id,
    );
    assert.equal(rows.length, 1);
  });

  it('fetches the keys once for many tokens', async () => {
    await signIn(t.app, t.database, { email: 'busy@example.com' });
    const before = idp.jwksRequests;
    for (let i = 0; i < 5; i++)
      assert.equal(
        (await me(await idp.issue({ email: 'busy@example.com', alg: i % 2 ? 'ES256' : 'RS256' }))).statusCode,
        200,
      );
    assert.equal(idp.jwksRequests, before, 'the keys fetched by the first test are reused');
  });
});

describe('external tokens: audience, an unreachable provider, and configuration', () => {
  let idp: IdentityProvider;
  before(async () => {
    idp = await startIdentityProvider();
  });
  after(async () => idp.close());

  it('checks the audience when one is configured', async () => {
    const t = await buildTestApp({ env: { JWT_JWKS_URL: idp.jwksUrl, JWT_JWKS_AUDIENCE: 'trading-desk' } });
    try {
      await signIn(t.app, t.database, { email: 'aud@example.com' });
      const call = async (aud: string) =>
        (
          await t.app.inject({
            method: 'GET',
            url: '/api/auth/me',
            headers: { authorization: `Bearer ${await idp.issue({ email: 'aud@example.com', claims: { aud } })}` },
          })
        ).statusCode;
      assert.equal(await call('authenticated'), 401);
      assert.equal(await call('trading-desk'), 200);
    } finally {
      await t.close();
    }
  });

  it('answers 401, never 500, when the provider’s keys cannot be had', async () => {
    const t = await buildTestApp({ env: { JWT_JWKS_URL: idp.jwksUrl } });
    const down = await buildTestApp({
      env: { JWT_JWKS_URL: `http://127.0.0.1:${await closedPort()}/auth/v1/.well-known/jwks.json` },
      keepData: true,
    });
    try {
      await signIn(t.app, t.database, { email: 'offline@example.com' });
      idp.failNext({ status: 503 });
      const token = await idp.issue({ email: 'offline@example.com' });
      const failed = await t.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(failed.statusCode, 401, failed.body);
      const recovered = await t.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(recovered.statusCode, 200, 'the same token passes once the keys are served again');
      const refused = await down.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(refused.statusCode, 401, refused.body);
    } finally {
      await down.close();
      await t.close();
    }
  });

  it('refuses provider tokens when no JWKS is configured', async () => {
    const t = await buildTestApp();
    try {
      await signIn(t.app, t.database, { email: 'nojwks@example.com' });
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: { authorization: `Bearer ${await idp.issue({ email: 'nojwks@example.com' })}` },
      });
      assert.equal(response.statusCode, 401);
    } finally {
      await t.close();
    }
  });

  it('derives the issuer from a Supabase-style URL and otherwise requires it', () => {
    const base = {
      JWT_SECRET: TEST_JWT_SECRET,
      DATA_DIR: '/nonexistent-not-used',
      ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
    };
    const derived = loadConfig({ ...base, JWT_JWKS_URL: 'https://abc.supabase.co/auth/v1/.well-known/jwks.json' });
    assert.deepEqual(derived.auth.externalTokens, {
      jwksUrl: 'https://abc.supabase.co/auth/v1/.well-known/jwks.json',
      issuer: 'https://abc.supabase.co/auth/v1',
      audience: undefined,
    });
    assert.throws(
      () => loadConfig({ ...base, JWT_JWKS_URL: 'https://idp.example.com/keys' }),
      /JWT_JWKS_ISSUER must be set with JWT_JWKS_URL/,
    );
    const named = loadConfig({
      ...base,
      JWT_JWKS_URL: 'https://idp.example.com/keys',
      JWT_JWKS_ISSUER: 'https://idp.example.com/',
      JWT_JWKS_AUDIENCE: 'api',
    });
    assert.deepEqual(named.auth.externalTokens, {
      jwksUrl: 'https://idp.example.com/keys',
      issuer: 'https://idp.example.com/',
      audience: 'api',
    });
    assert.throws(() => loadConfig({ ...base, JWT_JWKS_ISSUER: 'https://idp.example.com/' }), /need JWT_JWKS_URL/);
  });
});
