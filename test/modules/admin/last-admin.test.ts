// There is always an active admin: two admins taking each other's role or account away at the same
// moment cannot both succeed (on PostgreSQL the requests truly run at once).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

describe('the last active admin', () => {
  // Two instances, as behind a load balancer: a change made through one does not drop the other's
  // cached principals, so both requests pass their guards and meet in the database.
  let t: TestApp;
  let other: TestApp;
  let a: TestUser;
  let b: TestUser;
  before(async () => {
    t = await buildTestApp();
    other = await buildTestApp({ keepData: true });
    a = await signIn(t.app, t.database, { role: 'admin' });
    b = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
    await other.close();
  });

  const appOf = (user: TestUser) => (user === a ? t : other);
  const patch = (by: TestUser, target: TestUser, payload: object) =>
    appOf(by).app.inject({ method: 'PATCH', url: `/api/admin/users/${target.id}`, payload, headers: by.headers });
  const activeAdmins = async (by: TestUser) => {
    const response = await appOf(by).app.inject({
      method: 'GET',
      url: '/api/admin/users?role=admin&status=active&limit=100',
      headers: by.headers,
    });
    return response.json().users.map((u: { id: string }) => u.id) as string[];
  };

  // Each change, and what the guard says to an admin it has already taken effect on.
  const changes: [string, object, string][] = [
    ['demoting', { role: 'user' }, 'Admin role required'],
    ['suspending', { status: 'suspended' }, 'User account is suspended'],
  ];
  for (const [what, change, guardDetail] of changes) {
    it(`survives two admins ${what} each other at once, ten times over`, async () => {
      let refusedByTheRule = 0;
      for (let round = 0; round < 10; round++) {
        // Each instance has just seen its admin: the principal is cached, the guard lets the change in.
        for (const user of [a, b])
          assert.equal(
            (await appOf(user).app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers })).statusCode,
            200,
          );
        const [ab, ba] = await Promise.all([patch(a, b, change), patch(b, a, change)]);
        const statuses = [ab.statusCode, ba.statusCode].sort();
        assert.equal(statuses[0], 200, `round ${round}: ${ab.body} / ${ba.body}`);
        // The other is refused by the rule, or (its principal's cache having lapsed) by its guard.
        assert.ok([403, 409].includes(statuses[1]!), `round ${round}: ${ab.body} / ${ba.body}`);
        const loser = ab.statusCode === 200 ? ba : ab;
        if (loser.statusCode === 409) {
          refusedByTheRule += 1;
          assert.match(loser.json().detail, /is the last active admin; promote another account first$/);
        } else {
          assert.deepEqual(loser.json(), { detail: guardDetail });
        }
        const [survivor, demoted] = ab.statusCode === 200 ? [a, b] : [b, a];
        assert.deepEqual(await activeAdmins(survivor), [survivor.id]);
        // The survivor restores the demoted one, and signs them in again where a suspension ended their session.
        const restored = await patch(survivor, demoted, { role: 'admin', status: 'active' });
        assert.equal(restored.statusCode, 200, restored.body);
        if ('status' in change) {
          const login = await appOf(demoted).app.inject({
            method: 'POST',
            url: '/api/auth/login',
            payload: { email: demoted.email, password: demoted.password },
            remoteAddress: '10.66.0.1',
          });
          demoted.headers = { authorization: `Bearer ${login.json().access_token}` };
        }
        // The guards cache a principal for up to 2 s: wait until the restored admin is one again.
        for (let tries = 0; (await activeAdmins(demoted).catch(() => [])).length !== 2 && tries < 100; tries++)
          await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(refusedByTheRule > 0, 'the rule itself refused at least once (not only the guards)');
    });
  }

  it('bulk suspension keeps one admin too, and says why in skipped', async () => {
    const [ab, ba] = await Promise.all([
      appOf(a).app.inject({
        method: 'POST',
        url: '/api/admin/users/bulk-action',
        payload: { action: 'suspend', userIds: [b.id] },
        headers: a.headers,
      }),
      appOf(b).app.inject({
        method: 'POST',
        url: '/api/admin/users/bulk-action',
        payload: { action: 'suspend', userIds: [a.id] },
        headers: b.headers,
      }),
    ]);
    const answers = [ab, ba].filter((r) => r.statusCode === 200).map((r) => r.json());
    // A request whose admin was suspended before its guard looked is refused (403) before it acts.
    assert.ok(
      [ab, ba].every((r) => r.statusCode === 200 || r.statusCode === 403),
      `${ab.body} / ${ba.body}`,
    );
    assert.ok(answers.length >= 1, 'one of them acts first');
    for (const r of [ab, ba])
      if (r.statusCode === 403) assert.deepEqual(r.json(), { detail: 'User account is suspended' });
    const skipped = answers.flatMap((answer) => answer.skipped as { id: string; reason: string }[]);
    if (answers.length === 2) {
      assert.equal(skipped.length, 1, JSON.stringify(answers));
      assert.match(skipped[0]!.reason, /is the last active admin/);
    }
    const survivor = ab.statusCode === 200 && !skipped.some((s) => s.id === b.id) ? a : b;
    assert.deepEqual(await activeAdmins(survivor), [survivor.id]);
  });
});
