import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import { adminExports } from '../../../src/modules/admin/admin.tables.ts';
import { EXPORT_TTL_MS } from '../../../src/modules/admin/user-actions.service.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { users } from '../../../src/modules/users/users.tables.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { assertValidation } from './admin-fixtures.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('admin: bulk actions', () => {
  const clock = fixedClock('2025-06-10T12:00:00.000Z');
  let t: TestApp;
  let admin: TestUser;

  before(async () => {
    t = await buildTestApp({ clock });
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
  });

  const bulk = (payload: unknown, headers = admin.headers) =>
    t.app.inject({ method: 'POST', url: '/api/admin/users/bulk-action', payload: payload as object, headers });
  const userOf = async (id: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/admin/users/${id}`, headers: admin.headers })).json();
  const statuses = async (ids: string[]) =>
    Object.fromEntries(await Promise.all(ids.map(async (id) => [id, (await userOf(id)).status])));
  /** The audit entries of one action the acting admin wrote, as the admin's activity shows them. */
  const adminEntries = async (action: string) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/admin/users/${admin.id}/activity?limit=100`,
        headers: admin.headers,
      })
    )
      .json()
      .filter((e: { action: string }) => e.action === action);
  /** Registers a user through the API (names optional) and answers its id. */
  const register = async (
    names: { firstName?: string; lastName?: string } = {},
    email = `user-${randomBytes(4).toString('hex')}@example.com`,
  ) => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email, password: 'password-1', ...names },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ id: string }>().id;
  };
  const patch = async (id: string, payload: object) =>
    assert.equal(
      (await t.app.inject({ method: 'PATCH', url: `/api/admin/users/${id}`, payload, headers: admin.headers }))
        .statusCode,
      200,
    );
  const remove = async (id: string) =>
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/api/admin/users/${id}`, headers: admin.headers })).statusCode,
      200,
    );

  it('suspends users: sessions revoked, refused with 403 from their next request; unknown ids reported', async () => {
    const a = await signIn(t.app, t.database);
    const b = await signIn(t.app, t.database);
    const response = await bulk({ userIds: [a.id, b.id, a.id, UNKNOWN_ID, 'not-a-uuid'], action: 'suspend' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      success: true,
      action: 'suspend',
      processed: 2,
      notFound: [UNKNOWN_ID, 'not-a-uuid'],
      skipped: [],
    });
    assert.deepEqual(await statuses([a.id, b.id]), { [a.id]: 'suspended', [b.id]: 'suspended' });
    for (const user of [a, b]) {
      const next = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers });
      assert.equal(next.statusCode, 403);
      assert.deepEqual(next.json(), { detail: 'User account is suspended' });
    }
    const entries = await adminEntries('admin.user.suspend');
    assert.deepEqual(entries.map((e: { subject_user_id: string }) => e.subject_user_id).sort(), [a.id, b.id].sort());
    assert.ok(entries.every((e: { actor_id: string }) => e.actor_id === admin.id));
    // Active again, the users still have no live session: suspending revoked them.
    await bulk({ userIds: [a.id, b.id], action: 'activate' });
    for (const user of [a, b]) {
      const next = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers });
      assert.equal(next.statusCode, 401);
      assert.deepEqual(next.json(), { detail: 'Session has been revoked or has expired' });
      const refresh = await t.app.inject({
        method: 'POST',
        url: '/api/auth/refresh',
        payload: { refresh_token: user.refreshToken },
      });
      assert.equal(refresh.statusCode, 401);
    }
  });

  it('activates suspended and deleted users, and deletes softly', async () => {
    const [suspended, deleted, active] = [await register(), await register(), await register()];
    await patch(suspended!, { status: 'suspended' });
    await remove(deleted!);
    const activated = await bulk({ userIds: [suspended, deleted, active], action: 'activate' });
    assert.deepEqual(activated.json(), { success: true, action: 'activate', processed: 3, notFound: [], skipped: [] });
    assert.deepEqual(await statuses([suspended!, deleted!, active!]), {
      [suspended!]: 'active',
      [deleted!]: 'active',
      [active!]: 'active',
    });
    // No operation shows the deletion time: whether activating cleared it is read from the users table.
    const [restored] = await t.database.db
      .select({ deletedAt: users.deletedAt })
      .from(users)
      .where(eq(users.id, deleted!));
    assert.equal(restored!.deletedAt, null);
    // Already-active users count as processed but get no audit entry: nothing changed for them.
    const activatedIds = (await adminEntries('admin.user.activate')).map(
      (e: { subject_user_id: string }) => e.subject_user_id,
    );
    assert.deepEqual(
      activatedIds.filter((id: string) => [suspended, deleted, active].includes(id)).sort(),
      [suspended, deleted].sort(),
    );

    const removed = await bulk({ userIds: [suspended, active], action: 'delete' });
    assert.deepEqual(removed.json(), { success: true, action: 'delete', processed: 2, notFound: [], skipped: [] });
    assert.deepEqual(await statuses([suspended!, active!]), { [suspended!]: 'deleted', [active!]: 'deleted' });
    // The deletion time is shown by no operation: read from the users table.
    const rows = await t.database.db
      .select({ deletedAt: users.deletedAt })
      .from(users)
      .where(inArray(users.id, [suspended!, active!]));
    assert.ok(rows.length === 2 && rows.every((r) => r.deletedAt instanceof Date));
  });

  it("never suspends or deletes the acting admin's own account, nor suspends a deleted user", async () => {
    const [gone, other] = [await register(), await register()];
    await remove(gone!);
    const response = await bulk({ userIds: [admin.id, gone, other], action: 'suspend' });
    const body = response.json();
    assert.equal(body.processed, 1);
    assert.deepEqual(
      body.skipped.sort((x: { id: string }, y: { id: string }) => x.id.localeCompare(y.id)),
      [
        { id: admin.id, reason: 'You cannot suspend your own account' },
        { id: gone!, reason: 'User is deleted; activate it first' },
      ].sort((x, y) => x.id.localeCompare(y.id)),
    );
    assert.deepEqual(await statuses([admin.id, gone!, other!]), {
      [admin.id]: 'active',
      [gone!]: 'deleted',
      [other!]: 'suspended',
    });
    const deletion = (await bulk({ userIds: [admin.id], action: 'delete' })).json();
    assert.deepEqual(deletion.skipped, [{ id: admin.id, reason: 'You cannot delete your own account' }]);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: admin.headers })).statusCode, 200);
  });

  it('is not fatal when no id is known', async () => {
    const response = await bulk({ userIds: [UNKNOWN_ID], action: 'delete' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      success: true,
      action: 'delete',
      processed: 0,
      notFound: [UNKNOWN_ID],
      skipped: [],
    });
  });

  it('reports a missing or invalid body in the Pydantic shape', async () => {
    assertValidation(await bulk({}), [
      { loc: ['body', 'userIds'], type: 'missing' },
      { loc: ['body', 'action'], type: 'missing' },
    ]);
    const wrong = assertValidation(await bulk({ userIds: [], action: 'nuke' }), [
      { loc: ['body', 'userIds'], type: 'too_short' },
      { loc: ['body', 'action'], type: 'enum' },
    ]);
    assert.equal(wrong[1]!.msg, "Input should be 'activate', 'suspend', 'delete' or 'export'");
    assertValidation(await bulk({ userIds: [UNKNOWN_ID, 7], action: 'export' }), [
      { loc: ['body', 'userIds', 1], type: 'string_type' },
    ]);
    assertValidation(await bulk({ userIds: UNKNOWN_ID, action: 'export' }), [
      { loc: ['body', 'userIds'], type: 'list_type' },
    ]);
    const tooMany = Array.from({ length: 1001 }, () => UNKNOWN_ID);
    assertValidation(await bulk({ userIds: tooMany, action: 'export' }), [
      { loc: ['body', 'userIds'], type: 'too_long' },
    ]);
    assertValidation(await bulk(undefined), [{ loc: ['body'], type: 'missing' }]);
  });

  describe('export', () => {
    it('stores a CSV of the users found that an admin can download until it expires', async () => {
      const ada = await register({ firstName: 'Ada', lastName: 'Lovelace, Countess' }, 'ada@example.com');
      await patch(ada, { subscriptionTier: 'pro' });
      const evil = await register(
        { firstName: '=HYPERLINK("http://evil.example","click")', lastName: '@SUM(1)' },
        'evil@example.com',
      );
      const response = await bulk({ userIds: [ada, evil, UNKNOWN_ID], action: 'export' });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.success, true);
      assert.equal(body.processed, 2);
      assert.deepEqual(body.notFound, [UNKNOWN_ID]);
      assert.equal(body.exportUrl, `/api/admin/users/exports/${body.exportId}`);
      assert.equal(body.expiresAt, new Date(clock.now().getTime() + EXPORT_TTL_MS).toISOString());

      const other = await signIn(t.app, t.database, { role: 'admin' });
      const download = await t.app.inject({ method: 'GET', url: body.exportUrl, headers: other.headers });
      assert.equal(download.statusCode, 200);
      assert.equal(download.headers['content-type'], 'text/csv; charset=utf-8');
      assert.match(
        String(download.headers['content-disposition']),
        /^attachment; filename="users-20250610-120000\.csv"$/,
      );
      const lines = download.body.trimEnd().split('\r\n');
      assert.equal(
        lines[0],
        'id,email,firstName,lastName,role,subscriptionTier,status,' +
          'createdAt,lastLogin,emailVerified,twoFactorEnabled,totalTrades,accountBalance,avatar',
      );
      assert.equal(lines.length, 3);
      assert.ok(lines.some((l) => l.startsWith(`${ada},ada@example.com,Ada,"Lovelace, Countess",user,pro,active,`)));
      const evilLine = lines.find((l) => l.startsWith(`${evil},`))!;
      assert.ok(evilLine.includes(`"'=HYPERLINK(""http://evil.example"",""click"")",'@SUM(1),`), evilLine);

      const audits = await adminEntries('admin.users.export');
      assert.equal(audits.length, 1);
      assert.equal(audits[0]!.target_id, body.exportId);

      clock.advance(EXPORT_TTL_MS + 1000);
      // A day later the earlier access tokens have expired too: sign in afresh.
      admin = await signIn(t.app, t.database, { role: 'admin' });
      const expired = await t.app.inject({ method: 'GET', url: body.exportUrl, headers: admin.headers });
      assert.equal(expired.statusCode, 404);
      assert.deepEqual(expired.json(), { detail: 'Export not found or expired' });
    });

    it('answers 404 for an unknown or malformed export id, and refuses non-admins', async () => {
      for (const id of [UNKNOWN_ID, 'nope']) {
        const response = await t.app.inject({
          method: 'GET',
          url: `/api/admin/users/exports/${id}`,
          headers: admin.headers,
        });
        assert.equal(response.statusCode, 404);
      }
      const made = (await bulk({ userIds: [admin.id], action: 'export' })).json();
      // Making it purged the export of the previous test, which had expired. An expired export answers
      // 404 whether or not its row is gone, so the purge is read from the exports table.
      assert.deepEqual(
        (await t.database.db.select().from(adminExports)).map((e) => e.id),
        [made.exportId],
      );
      const member = await signIn(t.app, t.database);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: made.exportUrl, headers: member.headers })).statusCode,
        403,
      );
      const anonymous = await t.app.inject({ method: 'GET', url: made.exportUrl });
      assert.equal(anonymous.statusCode, 401);
      assert.deepEqual(anonymous.json(), { detail: 'Not authenticated' });
    });
  });
});
