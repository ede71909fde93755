// The admin list filtered by a value whose accounts are few or all old (decision 1460): a page reads the
// days that hold its accounts, which the kept counts per day name, not every newer account in the date
// order. Its rows are the filter's, in the list's order, at every depth, across day boundaries.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type SQL, sql } from 'drizzle-orm';
import type { UserFilter } from '../../../src/modules/users/accounts-list.repository.ts';
import { createAccountsRepository } from '../../../src/modules/users/accounts.repository.ts';
import { rowsReadUnderGenericPlans } from '../../helpers/plans.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

/** Accounts deleted long ago, made and stored before every other: a purge's backlog. */
const DELETED = 1_000;
/** The platform's accounts since, one every 20 minutes (72 a day, over 83 days). */
const ACCOUNTS = 6_000;
/** Of them, the oldest are the only ones on the `pro` tier; every 50th is suspended. */
const PRO = 10;

describe('admin list: a filtered page reads the days that hold its accounts', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp();
    await t.database.db.execute(sql`
      INSERT INTO users (email, password_hash, first_name, last_name, status, created_at)
      SELECT 'gone-' || i || '@days.example', 'unusable', 'Gone', 'Person', 'deleted',
        timestamptz '2024-01-01T00:00:00Z' + i * interval '1 minute'
      FROM generate_series(1, ${DELETED}) AS i`);
    await t.database.db.execute(sql`
      INSERT INTO users (email, password_hash, first_name, last_name, status, subscription_tier, created_at)
      SELECT 'day-' || i || '@days.example', 'unusable', 'Day', 'Person',
        CASE WHEN i % 50 = 0 THEN 'suspended' ELSE 'active' END,
        CASE WHEN i <= ${PRO} THEN 'pro' ELSE 'free' END,
        timestamptz '2025-01-01T00:00:00Z' + i * interval '20 minutes'
      FROM generate_series(1, ${ACCOUNTS}) AS i`);
    await t.database.db.execute(sql`ANALYZE users`);
  });
  after(() => t.close());

  const list = (filter: UserFilter, offset: number, limit: number) =>
    createAccountsRepository(t.database.db).list(filter, offset, limit);

  for (const [name, filter, total, first] of [
    ['the deleted accounts, all older than the rest', { status: 'deleted' }, DELETED, `gone-${DELETED}`],
    ['a tier of the ten oldest accounts, which no index holds', { subscriptionTier: 'pro' }, PRO, `day-${PRO}`],
  ] as const) {
    it(`${name}: the first page reads its days, not the newer accounts`, async () => {
      const read = await rowsReadUnderGenericPlans(t, 'users', async (db) => {
        const page = await createAccountsRepository(db).list(filter, 0, 50);
        assert.equal(page.total, total);
        assert.equal(page.rows.length, Math.min(total, 50));
        assert.equal(page.rows[0]!.email, `${first}@days.example`);
      });
      // The deleted page reads its 50; the tier's, the 72 accounts of its one day, or the walk of a day
      // that the planner prefers; never the 6,000 accounts after them.
      assert.ok(read < 1_200, `read ${read} accounts for a page of ${Math.min(total, 50)}`);
    });
  }

  it('a page deep among the deleted accounts skips within its days', async () => {
    const read = await rowsReadUnderGenericPlans(t, 'users', async (db) => {
      const page = await createAccountsRepository(db).list({ status: 'deleted' }, 300, 50);
      assert.equal(page.rows[0]!.email, `gone-${DELETED - 300}@days.example`);
    });
    assert.ok(read < 400, `read ${read} accounts for a page 300 deep`);
  });

  it("every page is the filter's accounts in the list's order, at every depth and across days", async () => {
    const filters: [UserFilter, SQL][] = [
      [{ status: 'deleted' }, sql`status = 'deleted'`],
      [{ status: 'suspended' }, sql`status = 'suspended'`],
      [{ subscriptionTier: 'pro' }, sql`subscription_tier = 'pro' AND status <> 'deleted'`],
      [{ role: 'user' }, sql`role = 'user' AND status <> 'deleted'`],
      [{ subscriptionTier: 'free', status: 'active' }, sql`subscription_tier = 'free' AND status = 'active'`],
    ];
    for (const [filter, condition] of filters) {
      for (const [offset, limit] of [
        [0, 50],
        [1, 7],
        [71, 3],
        [119, 5],
        [500, 100],
        [999, 50],
        [1000, 50],
        [1001, 13],
        [5_000, 100],
        [20_000, 10],
      ] as const) {
        const expected = await t.database.rows<{ email: string }>(
          sql`SELECT email FROM users WHERE ${condition} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
        );
        const [{ n }] = await t.database.rows<{ n: number }>(
          sql`SELECT count(*)::int AS n FROM users WHERE ${condition}`,
        );
        const page = await list(filter, offset, limit);
        const at = `${JSON.stringify(filter)} at ${offset}, ${limit}`;
        assert.deepEqual(
          page.rows.map((r) => r.email),
          expected.map((r) => r.email),
          at,
        );
        assert.equal(page.total, n, at);
      }
    }
  });
});
