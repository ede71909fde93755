// The admin user list past its first thousand rows starts a page at the day its first row falls in,
// from the counts the database keeps (user_counts), and skips only that day's rows. Every page must
// be exactly the page a plain `ORDER BY created_at DESC, id DESC OFFSET … LIMIT …` gives.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../../src/platform/db/database.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const USERS = 3_000;

describe('admin: deep pages of the user list', () => {
  let t: TestApp;
  let admin: TestUser;

  before(async () => {
    t = await buildTestApp();
    admin = await signIn(t.app, t.database, { role: 'admin' });
    // Written as a bulk import writes them: the kept counts follow by the database's own triggers.
    // Eleven UTC days, uneven per day, several users per instant (the id decides their order), and
    // every status, role and tier, so that filters change where a page starts.
    await t.database.db.execute(sql`
      INSERT INTO users (email, password_hash, role, subscription_tier, status, created_at)
      SELECT 'deep-' || i || '@example.com', 'unusable',
        CASE WHEN i % 7 = 0 THEN 'admin' ELSE 'user' END,
        (ARRAY['free', 'pro', 'enterprise'])[1 + i % 3],
        (ARRAY['active', 'active', 'active', 'suspended', 'deleted'])[1 + i % 5],
        timestamptz '2025-03-01T00:00:00Z' + ((i * i) % 11) * interval '1 day' + (i % 37) * interval '1 minute'
      FROM generate_series(1, ${USERS}) AS i`);
  });
  after(async () => {
    await t.close();
  });

  const expected = async (where: string, offset: number, limit: number) =>
    rowsOf<{ id: string }>(
      await t.database.db.execute(
        sql.raw(
          `SELECT id FROM users WHERE ${where} ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT ${limit}`,
        ),
      ),
    ).map((r) => r.id);

  const listed = async (query: string) => {
    const response = await t.app.inject({ method: 'GET', url: `/api/admin/users?${query}`, headers: admin.headers });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as { users: { id: string }[]; total: number };
    return { ids: body.users.map((u) => u.id), total: body.total };
  };

  it('answers every deep page as the plain ordered query does, across day boundaries', async () => {
    const [{ n }] = rowsOf<{ n: number }>(
      await t.database.db.execute(sql`SELECT count(*)::int AS n FROM users WHERE status <> 'deleted'`),
    ) as [{ n: number }];
    assert.ok(n > 1_100, `enough users to go past the first thousand (${n})`);
    for (const limit of [50, 37]) {
      for (let page = Math.floor(1_000 / limit); (page - 1) * limit <= n; page++) {
        const { ids, total } = await listed(`page=${page}&limit=${limit}`);
        assert.equal(total, n);
        assert.deepEqual(
          ids,
          await expected(`status <> 'deleted'`, (page - 1) * limit, limit),
          `page ${page} of ${limit}`,
        );
      }
    }
  });

  it('starts a deep page at the right day under filters, and past the end answers none with the total', async () => {
    const cases = [
      { query: 'role=user', where: `status <> 'deleted' AND role = 'user'` },
      { query: 'status=active&subscriptionTier=pro', where: `status = 'active' AND subscription_tier = 'pro'` },
      { query: 'status=suspended', where: `status = 'suspended'` },
    ];
    for (const { query, where } of cases) {
      const [{ n }] = rowsOf<{ n: number }>(
        await t.database.db.execute(sql.raw(`SELECT count(*)::int AS n FROM users WHERE ${where}`)),
      ) as [{ n: number }];
      for (const offset of [0, 990, 1_000, 1_010, n - 10, n].filter((o) => o >= 0 && o <= n)) {
        const page = Math.floor(offset / 10) + 1;
        const { ids, total } = await listed(`${query}&page=${page}&limit=10`);
        assert.equal(total, n, query);
        assert.deepEqual(ids, await expected(where, (page - 1) * 10, 10), `${query} page ${page}`);
      }
    }
    const { ids, total } = await listed('page=1000&limit=100');
    assert.deepEqual(ids, []);
    assert.ok(total > 1_000);
  });
});
