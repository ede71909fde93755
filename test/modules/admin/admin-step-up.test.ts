// An admin's changes to other accounts want the admin's fresh second factor when the admin has
// two-factor on (issue 37, decision 202): role, status, two-factor reset, password reset, bulk actions.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { signIn, type TestUser } from '../../helpers/test-app.ts';
import { useTwoFactorApp } from '../auth/two-factor-fixtures.ts';

describe("admin changes to accounts need the admin's step-up", () => {
  const clock = fixedClock('2026-03-01T12:00:05.000Z');
  const f = useTwoFactorApp(clock);
  let operator: TestUser;
  before(async () => {
    operator = await signIn(f.t.app, f.t.database, { role: 'admin' });
  });

  /** An admin with two-factor on, signed in with it: the second factor is fresh until the clock moves on. */
  async function twoFactorAdmin() {
    const enrolled = await f.enrolled();
    const promoted = await f.call('PATCH', `/api/admin/users/${enrolled.id}`, operator.token, { role: 'admin' });
    assert.equal(promoted.statusCode, 200, promoted.body);
    const verified = await f.post('/api/auth/2fa/verify', {
      mfa_token: await f.challenge(enrolled),
      code: f.codeAt(enrolled.secret),
    });
    assert.equal(verified.statusCode, 200, verified.body);
    f.nextStep();
    return { ...enrolled, token: verified.json<{ access_token: string }>().access_token };
  }
  const changesOf = (target: TestUser) =>
    [
      ['PATCH', `/api/admin/users/${target.id}`, { role: 'admin' }],
      ['PATCH', `/api/admin/users/${target.id}`, { status: 'suspended' }],
      ['PATCH', `/api/admin/users/${target.id}`, { twoFactorEnabled: false }],
      [
        'POST',
        `/api/admin/users/reset-password?${new URLSearchParams({ userId: target.id, email: target.email, sendEmail: 'false' })}`,
        undefined,
      ],
      ['POST', '/api/admin/users/bulk-action', { action: 'activate', userIds: [target.id] }],
      ['DELETE', `/api/admin/users/${target.id}`, undefined],
    ] as const;

  it('refuses each change with a stale second factor (403 naming it), and lets a step-up through', async () => {
    const admin = await twoFactorAdmin();
    const target = await signIn(f.t.app, f.t.database);
    clock.advance(10 * 60_000 + 1_000);
    for (const [method, url, body] of changesOf(target)) {
      const response = await f.call(method, url, admin.token, body);
      assertDetail(response, 403, 'Second factor required');
      assert.match(
        String(response.headers['www-authenticate']),
        /insufficient_user_authentication/,
        `${method} ${url}`,
      );
    }
    assert.equal(
      (await f.call('GET', `/api/admin/users/${target.id}`, admin.token)).statusCode,
      200,
      'reading needs none',
    );

    const stepped = await f.post(
      '/api/auth/2fa/step-up',
      { code: f.codeAt(admin.secret) },
      { authorization: `Bearer ${admin.token}` },
    );
    assert.equal(stepped.statusCode, 200, stepped.body);
    const fresh = stepped.json<{ access_token: string }>().access_token;
    for (const [method, url, body] of changesOf(target)) {
      const response = await f.call(method, url, fresh, body);
      assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
    }
  });

  it('lets an admin without two-factor through, as the other step-up operations do', async () => {
    const admin = await signIn(f.t.app, f.t.database, { role: 'admin' });
    const target = await signIn(f.t.app, f.t.database);
    for (const [method, url, body] of changesOf(target)) {
      const response = await f.call(method, url, admin.token, body);
      assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
    }
  });

  it('still refuses a user (403) and no token (401) before asking for a second factor', async () => {
    const user = await signIn(f.t.app, f.t.database);
    assertDetail(
      await f.call('PATCH', `/api/admin/users/${user.id}`, user.token, { role: 'admin' }),
      403,
      'Admin role required',
    );
    const anonymous = await f.t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${user.id}`,
      payload: { role: 'admin' },
    });
    assertDetail(anonymous, 401, 'Not authenticated');
  });

  it("keeps an admin's own second factor from the admin API: 409 with a session or an admin:write token (decision 882)", async () => {
    const admin = await twoFactorAdmin();
    const created = await f.call('POST', '/api/auth/tokens', admin.token, { name: 'bot', scopes: ['admin:write'] });
    assert.equal(created.statusCode, 201, created.body);
    const bot = created.json<{ token: string }>().token;
    const own = `/api/admin/users/${admin.id}`;
    // The token may not touch two-factor through /api/auth; the admin route was the way around it.
    assertDetail(await f.call('PATCH', own, bot, { twoFactorEnabled: false }), 409);
    assertDetail(await f.call('PATCH', own, admin.token, { twoFactorEnabled: false }), 409);
    const me = await f.call('GET', '/api/auth/me', admin.token);
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json<{ twoFactorEnabled: boolean }>().twoFactorEnabled, true);
    // Another admin still resets it: the way back for an admin who lost their authenticator.
    assert.equal((await f.call('PATCH', own, operator.token, { twoFactorEnabled: false })).statusCode, 200);
  });

  it('documents the step-up on each such operation', async () => {
    const document = (await f.t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { 'x-step-up'?: boolean }>>;
    }>();
    const flagged = (path: string, method: string) => document.paths[path]?.[method]?.['x-step-up'] === true;
    assert.ok(flagged('/api/admin/users/{user_id}', 'patch'));
    assert.ok(flagged('/api/admin/users/{user_id}', 'delete'));
    assert.ok(flagged('/api/admin/users/bulk-action', 'post'));
    assert.ok(flagged('/api/admin/users/reset-password', 'post'));
    assert.ok(!flagged('/api/admin/users/{user_id}', 'get'));
  });
});
