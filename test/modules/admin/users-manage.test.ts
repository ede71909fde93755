import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import { users } from '../../../src/modules/users/users.tables.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { assertValidation } from './admin-fixtures.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('admin: read, change and delete a user', () => {
  let t: TestApp;
  let admin: TestUser;
  let member: TestUser;

  before(async () => {
    t = await buildTestApp();
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  beforeEach(async () => {
    member = await signIn(t.app, t.database);
  });
  after(async () => {
    await t.close();
  });

  const request = (method: 'GET' | 'PATCH' | 'DELETE', url: string, payload?: object, headers = admin.headers) =>
    t.app.inject({ method, url, payload, headers });
  const me = (user: TestUser) => t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers });
  const refresh = (user: TestUser) =>
    t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refresh_token: user.refreshToken } });
  /** The admin audit entries about a user, newest first, as the activity operation shows them. */
  const adminEntries = async (userId: string, action: string) =>
    (await request('GET', `/api/admin/users/${userId}/activity?limit=100`))
      .json()
      .filter((e: { action: string }) => e.action === action);
  /** Once the account is active again, a revoked session is refused as such (the status no longer hides it). */
  const assertSessionRevoked = async (user: TestUser) => {
    const next = await me(user);
    assert.equal(next.statusCode, 401);
    assert.deepEqual(next.json(), { detail: 'Session has been revoked or has expired' });
    assert.equal((await refresh(user)).statusCode, 401);
  };

  describe('get', () => {
    it('answers the user in the contract shape', async () => {
      const response = await request('GET', `/api/admin/users/${member.id}`);
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.id, member.id);
      assert.equal(body.email, member.email);
      assert.deepEqual(
        [body.firstName, body.lastName, body.role, body.subscriptionTier, body.status],
        ['', '', 'user', 'free', 'active'],
      );
      assert.deepEqual(
        [body.emailVerified, body.twoFactorEnabled, body.totalTrades, body.accountBalance, body.avatar],
        [false, false, 0, 0, null],
      );
      assert.match(body.lastLogin, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.ok(!('passwordHash' in body) && !('deletedAt' in body));
    });

    it('answers 404 User not found for an unknown id and for an id that is not a UUID', async () => {
      for (const id of [UNKNOWN_ID, 'not-a-uuid', "1' OR '1'='1"]) {
        const response = await request('GET', `/api/admin/users/${encodeURIComponent(id)}`);
        assert.equal(response.statusCode, 404, id);
        assert.deepEqual(response.json(), { detail: 'User not found' });
      }
    });
  });

  describe('patch', () => {
    it('changes tier and flags, answers the new user and audits what changed', async () => {
      const response = await request('PATCH', `/api/admin/users/${member.id}`, {
        subscriptionTier: 'pro',
        emailVerified: true,
      });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.deepEqual(
        [body.subscriptionTier, body.emailVerified, body.twoFactorEnabled, body.status],
        ['pro', true, false, 'active'],
      );
      const entries = await adminEntries(member.id, 'admin.user.update');
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.actor_id, admin.id);
      assert.equal(entries[0]!.actor_type, 'admin');
      assert.deepEqual(entries[0]!.details, {
        changes: { subscriptionTier: { from: 'free', to: 'pro' }, emailVerified: { from: false, to: true } },
      });
    });

    it('writes nothing when nothing changes, and ignores fields it does not know', async () => {
      const response = await request('PATCH', `/api/admin/users/${member.id}`, {
        subscriptionTier: 'free',
        email: 'evil@example.com',
        passwordHash: 'x',
        status: 'active',
      });
      assert.equal(response.statusCode, 200);
      assert.equal((await request('GET', `/api/admin/users/${member.id}`)).json().email, member.email);
      // The password is untouched: it still signs the user in.
      const login = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: member.email, password: member.password },
      });
      assert.equal(login.statusCode, 200);
      assert.equal((await adminEntries(member.id, 'admin.user.update')).length, 0);
    });

    it('suspending revokes the sessions: the user is refused with 403 from the next request', async () => {
      assert.equal((await me(member)).statusCode, 200);
      const response = await request('PATCH', `/api/admin/users/${member.id}`, { status: 'suspended' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().status, 'suspended');
      const next = await me(member);
      assert.equal(next.statusCode, 403);
      assert.deepEqual(next.json(), { detail: 'User account is suspended' });
      // The suspension revoked the session itself: its refresh token is refused as any revoked one is.
      const refused = await refresh(member);
      assert.equal(refused.statusCode, 401);
      assert.deepEqual(refused.json(), { detail: 'Invalid or expired refresh token' });
      const login = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: member.email, password: member.password },
      });
      assert.equal(login.statusCode, 403);

      const restored = await request('PATCH', `/api/admin/users/${member.id}`, { status: 'active' });
      assert.equal(restored.json().status, 'active');
      await assertSessionRevoked(member);
      const again = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: member.email, password: member.password },
      });
      assert.equal(again.statusCode, 200);
    });

    it('demoting an admin takes their admin access away at once', async () => {
      const other = await signIn(t.app, t.database, { role: 'admin' });
      assert.equal((await request('GET', '/api/admin/users', undefined, other.headers)).statusCode, 200);
      const response = await request('PATCH', `/api/admin/users/${other.id}`, { role: 'user' });
      assert.equal(response.json().role, 'user');
      const next = await request('GET', '/api/admin/users', undefined, other.headers);
      assert.equal(next.statusCode, 403);
      assert.deepEqual(next.json(), { detail: 'Admin role required' });
    });

    it('refuses with 409 an admin demoting or suspending themselves, and leaves them unchanged', async () => {
      const demote = await request('PATCH', `/api/admin/users/${admin.id}`, { role: 'user' });
      assert.equal(demote.statusCode, 409);
      assert.deepEqual(demote.json(), { detail: 'You cannot remove the admin role from your own account' });
      const suspend = await request('PATCH', `/api/admin/users/${admin.id}`, { status: 'suspended' });
      assert.equal(suspend.statusCode, 409);
      assert.deepEqual(suspend.json(), { detail: 'You cannot suspend your own account' });
      const harmless = await request('PATCH', `/api/admin/users/${admin.id}`, { role: 'admin', emailVerified: true });
      assert.equal(harmless.statusCode, 200);
      assert.equal(harmless.json().role, 'admin');
    });

    it('reports values outside the allowed sets in the Pydantic shape', async () => {
      const detail = assertValidation(
        await request('PATCH', `/api/admin/users/${member.id}`, {
          role: 'owner',
          subscriptionTier: 'gold',
          status: 'banned',
          emailVerified: 5,
          twoFactorEnabled: 'maybe',
        }),
        [
          { loc: ['body', 'role'], type: 'enum' },
          { loc: ['body', 'subscriptionTier'], type: 'enum' },
          { loc: ['body', 'status'], type: 'enum' },
          { loc: ['body', 'emailVerified'], type: 'bool_parsing' },
          { loc: ['body', 'twoFactorEnabled'], type: 'bool_parsing' },
        ],
      );
      assert.deepEqual(detail[2], {
        type: 'enum',
        loc: ['body', 'status'],
        msg: "Input should be 'active', 'suspended' or 'deleted'",
        input: 'banned',
        ctx: { expected: "'active', 'suspended' or 'deleted'" },
      });
    });

    it('answers 404 for an unknown or malformed id', async () => {
      for (const id of [UNKNOWN_ID, 'nope']) {
        const response = await request('PATCH', `/api/admin/users/${id}`, { subscriptionTier: 'pro' });
        assert.equal(response.statusCode, 404);
        assert.deepEqual(response.json(), { detail: 'User not found' });
      }
    });
  });

  describe('delete', () => {
    it('soft-deletes: status deleted, sessions revoked, record and history kept, out of the list', async () => {
      const response = await request('DELETE', `/api/admin/users/${member.id}`);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { success: true });

      const next = await me(member);
      assert.equal(next.statusCode, 403);
      assert.deepEqual(next.json(), { detail: 'User account is deleted' });

      assert.equal((await request('GET', `/api/admin/users/${member.id}`)).json().status, 'deleted');
      // No operation shows when a user was deleted: the deletion time is read from the users table.
      const [row] = await t.database.db
        .select({ deletedAt: users.deletedAt })
        .from(users)
        .where(eq(users.id, member.id));
      assert.ok(row!.deletedAt instanceof Date);

      const listed = (await request('GET', `/api/admin/users?search=${encodeURIComponent(member.email)}`)).json();
      assert.equal(listed.total, 0);
      const deleted = (
        await request('GET', `/api/admin/users?status=deleted&search=${encodeURIComponent(member.email)}`)
      ).json();
      assert.deepEqual(
        deleted.users.map((u: { id: string }) => u.id),
        [member.id],
      );

      const history = (await request('GET', `/api/admin/users/${member.id}/activity`)).json();
      assert.deepEqual(history.map((e: { action: string }) => e.action).slice(0, 1), ['admin.user.delete']);
      assert.ok(
        history.some((e: { action: string }) => e.action === 'auth.register'),
        'earlier history is kept',
      );

      // Restored, the account still has no live session: deleting revoked them.
      assert.equal(
        (await request('PATCH', `/api/admin/users/${member.id}`, { status: 'active' })).json().status,
        'active',
      );
      await assertSessionRevoked(member);
    });

    it('is idempotent: deleting a deleted user succeeds without a second audit entry', async () => {
      await request('DELETE', `/api/admin/users/${member.id}`);
      const again = await request('DELETE', `/api/admin/users/${member.id}`);
      assert.equal(again.statusCode, 200);
      assert.deepEqual(again.json(), { success: true });
      assert.equal((await adminEntries(member.id, 'admin.user.delete')).length, 1);
    });

    it('refuses an admin deleting themselves with 409', async () => {
      const response = await request('DELETE', `/api/admin/users/${admin.id}`);
      assert.equal(response.statusCode, 409);
      assert.deepEqual(response.json(), { detail: 'You cannot delete your own account' });
      assert.equal((await me(admin)).statusCode, 200);
    });

    it('answers 404 for an unknown or malformed id', async () => {
      for (const id of [UNKNOWN_ID, 'nope']) {
        const response = await request('DELETE', `/api/admin/users/${id}`);
        assert.equal(response.statusCode, 404);
        assert.deepEqual(response.json(), { detail: 'User not found' });
      }
    });
  });
});

describe('admin: user activity', () => {
  const clock = fixedClock('2025-06-10T12:00:00.000Z');
  let t: TestApp;
  let admin: TestUser;
  let memberId: string;

  before(async () => {
    t = await buildTestApp({ clock });
    admin = await signIn(t.app, t.database, { role: 'admin' });
    clock.advance(1000);
    const registered = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: 'member@example.com', password: 'password-1' },
    });
    memberId = registered.json().id;
    clock.advance(1000);
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: 'member@example.com', password: 'password-1' },
    });
    clock.advance(1000);
    await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${memberId}`,
      payload: { subscriptionTier: 'basic' },
      headers: admin.headers,
    });
    clock.advance(1000);
  });
  after(async () => {
    await t.close();
  });

  const activity = (userId: string, query = '') =>
    t.app.inject({ method: 'GET', url: `/api/admin/users/${userId}/activity${query}`, headers: admin.headers });

  it('lists what happened to the user, newest first, as snake_case objects', async () => {
    const response = await activity(memberId);
    assert.equal(response.statusCode, 200);
    const entries = response.json();
    assert.deepEqual(
      entries.map((e: { action: string }) => e.action),
      ['admin.user.update', 'auth.login', 'auth.register'],
    );
    assert.deepEqual(Object.keys(entries[0]).sort(), [
      'action',
      'actor_id',
      'actor_type',
      'created_at',
      'details',
      'id',
      'ip',
      'subject_user_id',
      'target_id',
      'target_type',
    ]);
    assert.equal(entries[0].actor_id, admin.id);
    assert.equal(entries[0].actor_type, 'admin');
    assert.equal(entries[0].target_type, 'user');
    assert.equal(entries[0].target_id, memberId);
    assert.equal(entries[0].ip, '127.0.0.1');
    assert.equal(entries[0].created_at, '2025-06-10T12:00:03.000Z');
    assert.deepEqual(entries[0].details, { changes: { subscriptionTier: { from: 'free', to: 'basic' } } });
  });

  it("includes what the user did to others (the admin's own activity)", async () => {
    const entries = (await activity(admin.id)).json();
    // The admin registered, was promoted by the operator and signed in at the same instant, so only
    // the first place is fixed: the admin's change to the member, two seconds later.
    assert.equal(entries[0].action, 'admin.user.update');
    assert.equal(entries[0].subject_user_id, memberId);
    const earlier = entries.slice(1) as { action: string; subject_user_id: string; details: unknown }[];
    assert.deepEqual(earlier.map((e) => e.action).sort(), ['admin.user.update', 'auth.login', 'auth.register']);
    const promotion = earlier.find((e) => e.action === 'admin.user.update')!;
    assert.equal(promotion.subject_user_id, admin.id);
    assert.deepEqual(promotion.details, { changes: { role: { from: 'user', to: 'admin' } } });
  });

  it('honours limit, 20 by default', async () => {
    assert.deepEqual(
      (await activity(memberId, '?limit=1')).json().map((e: { action: string }) => e.action),
      ['admin.user.update'],
    );
    for (let i = 0; i < 25; i++) {
      await t.app.inject({
        method: 'PATCH',
        url: `/api/admin/users/${memberId}`,
        payload: { emailVerified: i % 2 === 0 },
        headers: admin.headers,
      });
    }
    assert.equal((await activity(memberId)).json().length, 20);
    assert.equal((await activity(memberId, '?limit=100')).json().length, 28);
  });

  it('reports limit outside 1..100 in the Pydantic shape', async () => {
    assertValidation(await activity(memberId, '?limit=0'), [{ loc: ['query', 'limit'], type: 'greater_than_equal' }]);
    assertValidation(await activity(memberId, '?limit=101'), [{ loc: ['query', 'limit'], type: 'less_than_equal' }]);
  });

  it('answers 404 for an unknown or malformed user id', async () => {
    for (const id of [UNKNOWN_ID, 'nope']) {
      const response = await activity(id);
      assert.equal(response.statusCode, 404);
      assert.deepEqual(response.json(), { detail: 'User not found' });
    }
  });
});
