// The platform owner's account (decision 903): the configured first admin is it; other admins cannot
// demote, suspend, delete or reset it, through any route or an admin:write token; the owner and the
// operator's command line can.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { users } from '../../../src/modules/users/users.tables.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { codeOf } from '../../helpers/totp-reference.ts';
import { buildTestApp, newClientAddress, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const OWNER_EMAIL = 'founder@example.com';
const OWNER_PASSWORD = 'founder-password-1';
const refusal = (what: string) =>
  `${OWNER_EMAIL} is the platform owner's account; other admins cannot ${what} it (the owner or the ` +
  "operator's command line can)";

describe("the platform owner's account", () => {
  let t: TestApp;
  let owner: { id: string; headers: { authorization: string } };
  let other: TestUser;
  before(async () => {
    t = await buildTestApp({ env: { ADMIN_EMAIL: OWNER_EMAIL, ADMIN_PASSWORD: OWNER_PASSWORD } });
    const login = await post('/api/auth/login', { email: OWNER_EMAIL, password: OWNER_PASSWORD });
    assert.equal(login.statusCode, 200, login.body);
    owner = {
      id: (await rowOf(OWNER_EMAIL)).id,
      headers: { authorization: `Bearer ${login.json<{ access_token: string }>().access_token}` },
    };
    other = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
  });

  const post = (url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers, remoteAddress: newClientAddress() });
  const call = (method: 'PATCH' | 'DELETE' | 'POST', url: string, headers: object, payload?: unknown) =>
    t.app.inject({ method, url, headers: headers as Record<string, string>, payload: payload as object });
  async function rowOf(email: string) {
    const [row] = await t.database.db.select().from(users).where(eq(users.email, email));
    assert.ok(row, email);
    return row;
  }
  const resetPassword = (target: { id: string; email: string }, headers: object) =>
    call(
      'POST',
      `/api/admin/users/reset-password?${new URLSearchParams({ userId: target.id, email: target.email, sendEmail: 'false' })}`,
      headers,
    );

  it("is the configured first admin's, made at start", async () => {
    const row = await rowOf(OWNER_EMAIL);
    assert.deepEqual([row.role, row.owner], ['admin', true]);
    assert.equal((await rowOf(other.email)).owner, false, 'an admin made otherwise is not the owner');
  });

  it('leaves the owner an ordinary admin towards others, and the operator free to change the owner', async () => {
    const target = await signIn(t.app, t.database, { role: 'admin' });
    const demoted = await call('PATCH', `/api/admin/users/${target.id}`, owner.headers, { role: 'user' });
    assert.equal(demoted.statusCode, 200, demoted.body);
    assert.equal((await resetPassword(target, owner.headers)).statusCode, 200);
    // The operator (the command line's actor) may; so may the flag be set by it alone.
    const operator = { id: null };
    const changed = await t.modules.admin.users.updateUser(owner.id, { subscriptionTier: 'basic' }, operator);
    assert.equal(changed.subscriptionTier, 'basic');
    await assert.rejects(
      t.modules.admin.users.updateUser(other.id, { owner: true }, { id: owner.id }),
      /Only the operator's command line names the platform owner/,
    );
    await t.modules.admin.users.updateUser(other.id, { owner: true }, operator);
    assert.equal((await rowOf(other.email)).owner, true);
    const otherToOwner = await call('PATCH', `/api/admin/users/${owner.id}`, other.headers, { role: 'user' });
    assertDetail(otherToOwner, 409, refusal('demote'));
    // Two owners: neither changes the other's account.
    assertDetail(
      await call('PATCH', `/api/admin/users/${other.id}`, owner.headers, { status: 'suspended' }),
      409,
      `${other.email} is the platform owner's account; other admins cannot suspend it (the owner or the operator's command line can)`,
    );
  });
  it('refuses every change of another admin that takes a right or a way in from it (409), and keeps it', async () => {
    // The owner's second factor, enrolled by the owner (last: the owner's admin changes then want a
    // step-up): another admin may not reset it either.
    const setup = await post('/api/auth/2fa/setup', { password: OWNER_PASSWORD }, owner.headers);
    assert.equal(setup.statusCode, 200, setup.body);
    const enabled = await post('/api/auth/2fa/enable', { code: codeOf(setup.json().secret) }, owner.headers);
    assert.equal(enabled.statusCode, 200, enabled.body);
    const url = `/api/admin/users/${owner.id}`;
    const cases: [() => ReturnType<typeof call>, string][] = [
      [() => call('PATCH', url, other.headers, { role: 'user' }), 'demote'],
      [() => call('PATCH', url, other.headers, { status: 'suspended' }), 'suspend'],
      [() => call('PATCH', url, other.headers, { status: 'deleted' }), 'delete'],
      [() => call('PATCH', url, other.headers, { emailVerified: false }), 'change the address verification of'],
      [() => call('PATCH', url, other.headers, { twoFactorEnabled: false }), 'reset the second factor of'],
      [() => call('DELETE', url, other.headers), 'delete'],
      [() => resetPassword({ id: owner.id, email: OWNER_EMAIL }, other.headers), 'reset the password of'],
    ];
    for (const [request, what] of cases) assertDetail(await request(), 409, refusal(what));
    const bulk = await call('POST', '/api/admin/users/bulk-action', other.headers, {
      action: 'suspend',
      userIds: [owner.id],
    });
    assert.equal(bulk.statusCode, 200, bulk.body);
    assert.deepEqual(bulk.json().skipped, [{ id: owner.id, reason: refusal('suspend') }]);
    const row = await rowOf(OWNER_EMAIL);
    assert.deepEqual(
      [row.role, row.status, row.emailVerified, row.twoFactorEnabled],
      ['admin', 'active', true, true],
      'the owner keeps every right and way in',
    );
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: owner.headers });
    assert.equal(me.statusCode, 200, "the owner's session still works");
    // What takes nothing away stays another admin's to change, and a form writing back what it read passes.
    const tier = await call('PATCH', url, other.headers, { subscriptionTier: 'pro', role: 'admin', status: 'active' });
    assert.equal(tier.statusCode, 200, tier.body);
    assert.equal(tier.json().subscriptionTier, 'pro');
  });

  it("refuses it to another admin's admin:write token as to its session", async () => {
    const made = await post(
      '/api/auth/tokens',
      { name: 'automation', scopes: ['admin:read', 'admin:write'] },
      other.headers,
    );
    assert.equal(made.statusCode, 201, made.body);
    const headers = { authorization: `Bearer ${made.json().token}` };
    assertDetail(
      await call('PATCH', `/api/admin/users/${owner.id}`, headers, { role: 'user' }),
      409,
      refusal('demote'),
    );
    // Suspended by the operator, the owner's account may be reactivated by another admin: that takes nothing away.
    await t.modules.admin.users.updateUser(owner.id, { status: 'suspended' }, { id: null });
    const back = await call('PATCH', `/api/admin/users/${owner.id}`, other.headers, { status: 'active' });
    assert.equal(back.statusCode, 200, back.body);
  });

  it("says where an admin meets the owner's account: the operations' documents and the user's fixed fields (decision 1051)", async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { description?: string }>>;
    }>();
    for (const [path, method] of [
      ['/api/admin/users/{user_id}', 'patch'],
      ['/api/admin/users/{user_id}', 'delete'],
      ['/api/admin/users/bulk-action', 'post'],
      ['/api/admin/users/reset-password', 'post'],
    ] as const) {
      const description = document.paths[path]?.[method]?.description ?? '';
      assert.match(description, /platform owner's/, `${method} ${path} tells of the owner's account`);
      assert.match(description, /decisions? (903, )?1051/, `${method} ${path} names the decision`);
    }
    // The user object keeps the spec's fields: the flag is not among them.
    const read = await t.app.inject({ method: 'GET', url: `/api/admin/users/${owner.id}`, headers: other.headers });
    assert.equal(read.statusCode, 200, read.body);
    assert.ok(!('owner' in read.json()) && !('isOwner' in read.json()));
  });
});
