// The three cleanup jobs against seeded rows, with a fixed clock: what they delete or change, what
// they keep, and that a second run in a row changes nothing.
import assert from 'node:assert/strict';
import type { Tier } from '../../../src/modules/users/index.ts';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { eq, inArray } from 'drizzle-orm';
import { hashToken } from '../../../src/platform/auth/tokens.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { deviceSessions, passwordResetTokens, refreshTokens, users } from '../../../src/modules/users/users.tables.ts';
import { buildTestApp, resetDatabase, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { ago, DAY, HOUR, NOW, runJob } from '../jobs/jobs-fixtures.ts';

const later = (ms: number) => new Date(NOW.getTime() + ms);

describe('cleanup jobs', () => {
  let t: TestApp;
  let user: TestUser;
  before(async () => {
    t = await buildTestApp({
      clock: fixedClock(NOW),
      env: {
        SCHEDULED_JOB_SECRET: 'job-secret-0123456789abcdef',
        SESSION_IDLE_DAYS: '30',
        JOB_TRIGGER_WINDOW_SECONDS: '0',
      },
    });
    // (No trigger window: a second run in a row is what these tests check.)
  });
  beforeEach(async () => {
    await resetDatabase(t.database);
    user = await signIn(t.app, t.database);
  });
  after(() => t.close());

  /** A user's audit entries, newest first, as the admin activity operation shows them. */
  const activityOf = async (admin: TestUser, userId: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/admin/users/${userId}/activity?limit=100`,
      headers: admin.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as {
      id: string;
      action: string;
      actor_id: string | null;
      actor_type: string;
      subject_user_id: string;
      target_type: string;
      target_id: string;
      details: unknown;
      ip: string | null;
      created_at: string;
    }[];
  };

  const run = async (job: string) => {
    const run = await runJob(t.app, job);
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    return run.result;
  };

  // No operation lists sessions or refresh and reset tokens, nor dates them in the past: the device-session
  // and token cleanups seed and read those tables.
  async function session(fields: Partial<typeof deviceSessions.$inferInsert>): Promise<string> {
    const [row] = await t.database.db
      .insert(deviceSessions)
      .values({ userId: user.id, createdAt: ago(40 * DAY), lastSeenAt: ago(HOUR), expiresAt: later(DAY), ...fields })
      .returning({ id: deviceSessions.id });
    return row!.id;
  }

  describe('cleanup-grace-periods', () => {
    it(
      'returns users whose grace period ended to free, ' + 'clears the date, audits each, and then finds nobody',
      async () => {
        const admin = await signIn(t.app, t.database, { role: 'admin' });
        const seed = async (tier: Tier, graceEnds: Date | null) => {
          const u = await signIn(t.app, t.database);
          const patched = await t.app.inject({
            method: 'PATCH',
            url: `/api/admin/users/${u.id}`,
            payload: { subscriptionTier: tier },
            headers: admin.headers,
          });
          assert.equal(patched.json().subscriptionTier, tier);
          // No operation shows or sets the end of a grace period: it is written to (and read from) the users table.
          await t.database.db.update(users).set({ gracePeriodEndsAt: graceEnds }).where(eq(users.id, u.id));
          return u.id;
        };
        const ended = await seed('pro', ago(HOUR));
        const endsNow = await seed('basic', NOW);
        const running = await seed('enterprise', later(HOUR));
        const freeEnded = await seed('free', ago(2 * DAY));
        const paying = await seed('pro', null);
        // Ended once, then moved ahead or cleared by later writes: found by the end they have now.
        const extended = await seed('pro', ago(DAY));
        await t.database.db
          .update(users)
          .set({ gracePeriodEndsAt: later(DAY) })
          .where(eq(users.id, extended));
        const settled = await seed('basic', ago(DAY));
        await t.database.db.update(users).set({ gracePeriodEndsAt: null }).where(eq(users.id, settled));

        assert.deepEqual(await run('cleanup-grace-periods'), { downgraded: 2, cleared: 3 });
        const kept = await t.database.db
          .select({ id: users.id, tier: users.subscriptionTier })
          .from(users)
          .where(inArray(users.id, [extended, settled]));
        assert.deepEqual(
          new Map(kept.map((row) => [row.id, row.tier])),
          new Map([
            [extended, 'pro'],
            [settled, 'basic'],
          ]),
        );
        const seeded = [ended, endsNow, running, freeEnded, paying];
        const tiers = await Promise.all(
          seeded.map(
            async (id) =>
              (await t.app.inject({ method: 'GET', url: `/api/admin/users/${id}`, headers: admin.headers })).json()
                .subscriptionTier,
          ),
        );
        assert.deepEqual(tiers, ['free', 'free', 'enterprise', 'free', 'pro']);
        const rows = await t.database.db
          .select({ id: users.id, gracePeriodEndsAt: users.gracePeriodEndsAt })
          .from(users)
          .where(inArray(users.id, seeded));
        const graceOf = new Map(rows.map((r) => [r.id, r.gracePeriodEndsAt]));
        assert.equal(graceOf.get(ended), null);
        assert.equal(graceOf.get(endsNow), null);
        assert.equal(graceOf.get(running)!.toISOString(), later(HOUR).toISOString());
        assert.equal(graceOf.get(freeEnded), null);

        const graceAudits = async () => {
          const trails = await Promise.all(seeded.map((id) => activityOf(admin, id)));
          return trails
            .flat()
            .filter((a) => a.action === 'billing.grace_period.expired' || a.action === 'billing.grace_period.clear');
        };
        const audits = await graceAudits();
        assert.deepEqual(
          audits.map((a) => [a.subject_user_id, a.action, a.actor_type]).sort(),
          [
            [ended, 'billing.grace_period.expired', 'job'],
            [endsNow, 'billing.grace_period.expired', 'job'],
            [freeEnded, 'billing.grace_period.clear', 'job'],
          ].sort(),
        );
        const entry = audits.find((a) => a.subject_user_id === ended)!;
        assert.deepEqual(entry.details, {
          from: 'pro',
          to: 'free',
          grace_period_ended_at: ago(HOUR).toISOString(),
        });
        assert.deepEqual([entry.target_type, entry.target_id, entry.actor_id, entry.ip], ['user', ended, null, null]);
        assert.equal(entry.created_at, NOW.toISOString());
        // Written by the database in the job's statement, with ids of the kind the app gives (UUID v7:
        // the version nibble 7, the first 48 bits the milliseconds of writing).
        for (const { id } of audits) {
          assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
          const ms = Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
          assert.ok(Math.abs(ms - Date.now()) < 60_000, `${id} holds the time of writing`);
        }
        assert.equal(new Set(audits.map((a) => a.id)).size, audits.length);

        assert.deepEqual(await run('cleanup-grace-periods'), { downgraded: 0, cleared: 0 });
        assert.equal((await graceAudits()).filter((a) => a.action === 'billing.grace_period.expired').length, 2);
      },
    );
  });

  describe('cleanup-device-sessions', () => {
    it(
      'deletes expired, revoked and idle sessions with their ' + 'refresh tokens, keeps the rest, then deletes nothing',
      async () => {
        const expired = await session({ expiresAt: ago(1) });
        const revoked = await session({ revokedAt: ago(DAY), revokeReason: 'logout' });
        const idle = await session({ lastSeenAt: ago(30 * DAY + 1) });
        const idleButWithin = await session({ lastSeenAt: ago(30 * DAY) });
        const fresh = await session({});
        await t.database.db.insert(refreshTokens).values([
          { sessionId: idle, tokenHash: hashToken('idle-token'), expiresAt: later(DAY) },
          { sessionId: fresh, tokenHash: hashToken('fresh-token'), expiresAt: later(DAY) },
        ]);
        const before_ = await t.database.db.select().from(deviceSessions);
        assert.equal(before_.length, 6); // five seeded and the one signIn made

        assert.deepEqual(await run('cleanup-device-sessions'), {
          deleted: 3,
          expired: 1,
          revoked: 1,
          idle: 1,
          idle_days: 30,
        });
        const left = (await t.database.db.select().from(deviceSessions)).map((s) => s.id);
        assert.equal(left.length, 3);
        for (const gone of [expired, revoked, idle]) assert.ok(!left.includes(gone));
        for (const kept of [idleButWithin, fresh]) assert.ok(left.includes(kept));
        const tokens = await t.database.db
          .select()
          .from(refreshTokens)
          .where(inArray(refreshTokens.sessionId, [idle, fresh]));
        assert.deepEqual(
          tokens.map((r) => r.sessionId),
          [fresh],
        );

        assert.deepEqual(await run('cleanup-device-sessions'), {
          deleted: 0,
          expired: 0,
          revoked: 0,
          idle: 0,
          idle_days: 30,
        });
        // The signed-in user's own session survived and still authenticates.
        assert.equal(
          (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers })).statusCode,
          200,
        );
      },
    );

    it('a deleted session no longer authenticates', async () => {
      await t.database.db
        .update(deviceSessions)
        .set({ lastSeenAt: ago(31 * DAY) })
        .where(eq(deviceSessions.userId, user.id));
      assert.equal((await run('cleanup-device-sessions')).idle, 1);
      const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers });
      assert.equal(me.statusCode, 401);
    });
  });

  describe('cleanup-expired-tokens', () => {
    it('deletes expired or revoked refresh tokens and expired or used reset tokens, then deletes nothing', async () => {
      const sid = await session({});
      const token = (name: string, fields: Partial<typeof refreshTokens.$inferInsert>) => ({
        sessionId: sid,
        tokenHash: hashToken(`${name}-${randomBytes(4).toString('hex')}`),
        expiresAt: later(DAY),
        ...fields,
      });
      const refresh = await t.database.db
        .insert(refreshTokens)
        .values([
          token('expired', { expiresAt: ago(1) }),
          token('expires-now', { expiresAt: NOW }),
          token('revoked', { revokedAt: ago(HOUR) }),
          token('rotated', { rotatedAt: ago(HOUR) }),
          token('live', {}),
        ])
        .returning({ id: refreshTokens.id });
      const reset = (fields: Partial<typeof passwordResetTokens.$inferInsert>) => ({
        userId: user.id,
        tokenHash: hashToken(randomBytes(8).toString('hex')),
        expiresAt: later(HOUR),
        ...fields,
      });
      await t.database.db
        .insert(passwordResetTokens)
        .values([reset({ expiresAt: ago(1) }), reset({ usedAt: ago(HOUR) }), reset({})]);
      const countRefresh = async () =>
        (await t.database.db.select().from(refreshTokens).where(eq(refreshTokens.sessionId, sid))).length;
      assert.equal(await countRefresh(), 5);

      assert.deepEqual(await run('cleanup-expired-tokens'), { refresh_tokens: 3, password_reset_tokens: 2 });
      const kept = await t.database.db.select().from(refreshTokens).where(eq(refreshTokens.sessionId, sid));
      assert.deepEqual(kept.map((r) => r.id).sort(), [refresh[3]!.id, refresh[4]!.id].sort());
      const resets = await t.database.db.select().from(passwordResetTokens);
      assert.equal(resets.length, 1);
      assert.equal(resets[0]!.usedAt, null);

      assert.deepEqual(await run('cleanup-expired-tokens'), { refresh_tokens: 0, password_reset_tokens: 0 });
    });

    it(
      'keeps a rotated refresh token, so presenting it ' + 'again after the cleanup still revokes the session',
      async () => {
        const first = user.refreshToken;
        const rotated = await t.app.inject({
          method: 'POST',
          url: '/api/auth/refresh',
          payload: { refresh_token: first },
        });
        assert.equal(rotated.statusCode, 200, rotated.body);
        await run('cleanup-expired-tokens');
        const reuse = await t.app.inject({
          method: 'POST',
          url: '/api/auth/refresh',
          payload: { refresh_token: first },
        });
        assert.equal(reuse.statusCode, 401);
        // The session was revoked for the reuse: its access token is refused and the user's activity says why.
        assert.equal(
          (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers })).statusCode,
          401,
        );
        const sessionId = JSON.parse(Buffer.from(user.token.split('.')[1]!, 'base64url').toString()).sid;
        const admin = await signIn(t.app, t.database, { role: 'admin' });
        const reuses = (await activityOf(admin, user.id)).filter((a) => a.action === 'auth.refresh_reuse_detected');
        assert.deepEqual(
          reuses.map((a) => a.target_id),
          [sessionId],
        );
        // The newer token went with the revoked session: it no longer works either.
        const next = await t.app.inject({
          method: 'POST',
          url: '/api/auth/refresh',
          payload: { refresh_token: rotated.json().refresh_token },
        });
        assert.equal(next.statusCode, 401);
      },
    );
  });
});
