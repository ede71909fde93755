// What ends API tokens and sessions (issue 37; decision 201): a new password, a two-factor reset and a
// suspension revoke the user's `tpk_` tokens for good, a demotion takes the admin scopes away for good,
// and turning two-factor on ends every session but the one it was turned on from.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { before, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { signIn, type TestUser } from '../../helpers/test-app.ts';
import { useTwoFactorApp } from './two-factor-fixtures.ts';

describe('API tokens and sessions after account changes', () => {
  const f = useTwoFactorApp(fixedClock('2026-03-01T12:00:05.000Z'));
  let admin: TestUser;
  before(async () => {
    admin = await signIn(f.t.app, f.t.database, { role: 'admin' });
  });

  const makeToken = async (user: TestUser, scopes: string[]) => {
    const response = await f.call('POST', '/api/auth/tokens', user.token, { name: 'bot', scopes });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ id: string; token: string }>();
  };
  const patch = async (id: string, body: Record<string, unknown>) => {
    const response = await f.call('PATCH', `/api/admin/users/${id}`, admin.token, body);
    assert.equal(response.statusCode, 200, response.body);
  };
  const revoked = (response: LightMyRequestResponse) =>
    assertDetail(response, 401, 'Invalid, revoked or expired API token');
  const listed = async (user: TestUser) =>
    (await f.call('GET', '/api/auth/tokens', user.token)).json<{ id: string; scopes: string[] }[]>();

  it("a password change revokes the user's API tokens", async () => {
    const user = await signIn(f.t.app, f.t.database);
    const { token } = await makeToken(user, ['account:read']);
    assert.equal((await f.call('GET', '/api/auth/me', token)).statusCode, 200);
    const changed = await f.call('POST', '/api/auth/password', user.token, {
      current_password: user.password,
      new_password: 'a brand new password 1',
    });
    assert.equal(changed.statusCode, 200, changed.body);
    revoked(await f.call('GET', '/api/auth/me', token));
    assert.deepEqual(await listed(user), [], 'the session that changed it stays, its tokens do not');
  });

  it("an admin's password reset revokes the user's API tokens", async () => {
    const user = await signIn(f.t.app, f.t.database);
    const { token } = await makeToken(user, ['account:read']);
    const query = new URLSearchParams({ userId: user.id, email: user.email, sendEmail: 'false' });
    const reset = await f.call('POST', `/api/admin/users/reset-password?${query}`, admin.token);
    assert.equal(reset.statusCode, 200, reset.body);
    revoked(await f.call('GET', '/api/auth/me', token));
  });

  it("a two-factor reset revokes the user's API tokens", async () => {
    const user = await f.enrolled();
    // Made with a fresh second factor, as a user with two-factor on must.
    const step = await f.post('/api/auth/2fa/step-up', { code: f.codeAt(user.secret) }, user.headers);
    assert.equal(step.statusCode, 200, step.body);
    const fresh = { ...user, token: step.json<{ access_token: string }>().access_token };
    const { token } = await makeToken(fresh, ['account:read']);
    assert.equal((await f.call('GET', '/api/auth/me', token)).statusCode, 200);
    await patch(user.id, { twoFactorEnabled: false });
    revoked(await f.call('GET', '/api/auth/me', token));
  });

  it('a suspension revokes the tokens for good: reactivation does not bring them back', async () => {
    const user = await signIn(f.t.app, f.t.database);
    const { token } = await makeToken(user, ['account:read']);
    await patch(user.id, { status: 'suspended' });
    assertDetail(await f.call('GET', '/api/auth/me', token), 403, 'User account is suspended');
    await patch(user.id, { status: 'active' });
    revoked(await f.call('GET', '/api/auth/me', token));
  });

  it('a bulk suspension revokes the tokens too', async () => {
    const user = await signIn(f.t.app, f.t.database);
    const { token } = await makeToken(user, ['account:read']);
    const bulk = await f.call('POST', '/api/admin/users/bulk-action', admin.token, {
      action: 'suspend',
      userIds: [user.id],
    });
    assert.equal(bulk.statusCode, 200, bulk.body);
    const activate = await f.call('POST', '/api/admin/users/bulk-action', admin.token, {
      action: 'activate',
      userIds: [user.id],
    });
    assert.equal(activate.statusCode, 200, activate.body);
    revoked(await f.call('GET', '/api/auth/me', token));
  });

  it("a demotion takes the admin scopes out of the admin's tokens for good", async () => {
    const other = await signIn(f.t.app, f.t.database, { role: 'admin' });
    const mixed = await makeToken(other, ['admin:read', 'account:read']);
    const adminOnly = await makeToken(other, ['admin:write']);
    assert.equal((await f.call('GET', '/api/admin/users', mixed.token)).statusCode, 200);
    await patch(other.id, { role: 'user' });
    await patch(other.id, { role: 'admin' });
    assertDetail(
      await f.call('GET', '/api/admin/users', mixed.token),
      403,
      'This API token lacks the scope admin:read',
    );
    assert.equal((await f.call('GET', '/api/auth/me', mixed.token)).statusCode, 200, 'its other scopes stay');
    revoked(await f.call('GET', '/api/auth/me', adminOnly.token));
    assert.deepEqual(
      (await listed(other)).map((entry) => entry.scopes),
      [['account:read']],
      'a token left with no scope is revoked',
    );
  });

  it('turning two-factor on ends every other session; the one it was turned on from stays', async () => {
    const user = await signIn(f.t.app, f.t.database);
    const elsewhere = await f.login(user);
    assert.equal(elsewhere.statusCode, 200, elsewhere.body);
    const other = elsewhere.json<{ access_token: string; refresh_token: string }>();
    assert.equal((await f.me(other.access_token)).statusCode, 200);

    const setup = await f.post('/api/auth/2fa/setup', { password: user.password }, user.headers);
    const { secret } = setup.json<{ secret: string }>();
    const enable = await f.post('/api/auth/2fa/enable', { code: f.codeAt(secret) }, user.headers);
    assert.equal(enable.statusCode, 200, enable.body);

    assertDetail(await f.me(other.access_token), 401, 'Session has been revoked or has expired');
    assert.equal(
      (await f.post('/api/auth/refresh', { refresh_token: other.refresh_token })).statusCode,
      401,
      "the other session's refresh token is dead too",
    );
    assert.equal((await f.me(user.token)).statusCode, 200, 'the enrolling session stays');
  });
});
