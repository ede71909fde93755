// The admin list filtered by a rare role or status (decisions 401 and 1360): the page of the three admins
// among thousands of accounts, the oldest ones, reads a few index entries, not every account in the date
// order, even when the statistics never saw an admin. The app's statements are planned once for any value,
// unnamed ones included; a filter's page writes its values into its text, so it is planned for them. A
// search with a filter reads its matches under a plan made for the values given (its walk, decision 410,
// keeps the one plan).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Db } from '../../../src/platform/db/database.ts';
import { createAccountsRepository } from '../../../src/modules/users/accounts.repository.ts';
import { analyzeUntil, recordingDb, rowsReadUnderGenericPlans } from '../../helpers/plans.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

const ACCOUNTS = 6_000;

describe('admin list: a filter is read by its index for any value', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp();
    // The admins and the suspended are the oldest accounts: the date order reaches them last.
    await t.database.db.execute(sql`
      INSERT INTO users (email, password_hash, first_name, last_name, role, status, created_at)
      SELECT 'plan-' || i || '@plans.example', 'unusable', 'Plan', 'Person',
        CASE WHEN i <= 3 THEN 'admin' ELSE 'user' END,
        CASE WHEN i > 3 AND i <= 8 THEN 'suspended' ELSE 'active' END,
        timestamptz '2024-01-01T00:00:00Z' + i * interval '1 minute'
      FROM generate_series(1, ${ACCOUNTS}) AS i`);
    await t.database.db.execute(sql`ANALYZE users`);
  });
  after(() => t.close());

  const readUnderGenericPlans = (work: (db: Db) => Promise<unknown>) => rowsReadUnderGenericPlans(t, 'users', work);

  for (const [name, filter, expected] of [
    ['a rare role', { role: 'admin' as const }, 3],
    ['a rare status', { status: 'suspended' as const }, 5],
  ] as const) {
    it(`${name}: its page reads its own accounts under the one plan, not the table`, async () => {
      const read = await readUnderGenericPlans(async (db) => {
        const page = await createAccountsRepository(db).list(filter, 0, 50);
        assert.equal(page.rows.filter((row) => row.email.endsWith('@plans.example')).length, expected);
      });
      assert.ok(read < 100, `read ${read} accounts for a page of ${expected}`);
    });
  }

  it('a rare role its statistics never saw: its page still reads its own accounts, not the date order', async () => {
    // A sample of 300 accounts (the table's sample follows its largest statistics target): the three
    // admins are missed about six times in seven, and the planner then takes every account for a user.
    // Sampled until they are (one ANALYZE in six of 200,000 accounts missed the bench's 11 admins, and
    // each page walked every account: decision 1360).
    const db = t.database.db;
    try {
      const unseen = await analyzeUntil(t, 'users', async () => {
        const [stats] = await t.database.rows<{ n_distinct: number }>(
          sql`SELECT n_distinct FROM pg_stats WHERE tablename = 'users' AND attname = 'role'`,
        );
        return Number(stats?.n_distinct) === 1;
      });
      assert.ok(unseen, 'a sample without the admins');
      const read = await readUnderGenericPlans(async (on) => {
        const page = await createAccountsRepository(on).list({ role: 'admin' }, 0, 50);
        assert.equal(page.rows.filter((row) => row.email.endsWith('@plans.example')).length, 3);
      });
      assert.ok(read < 100, `read ${read} accounts for a page of 3`);
    } finally {
      await db.execute(sql`ANALYZE users`);
    }
  });

  it("a filter's page is planned for its values: they are in its text, not bound (decision 1360)", async () => {
    const { db, statements } = recordingDb(t);
    const page = await createAccountsRepository(db).list({ role: 'admin', subscriptionTier: 'free' }, 0, 50);
    assert.equal(page.rows.filter((row) => row.email.endsWith('@plans.example')).length, 3);
    const [read] = statements.filter((s) => /FROM "users"/.test(s.query));
    assert.ok(read, 'the page read the accounts');
    assert.match(read.query, /"users"\."status" <> 'deleted'/);
    assert.match(read.query, /"users"\."role" = 'admin'/);
    assert.match(read.query, /"users"\."subscription_tier" = 'free'/);
    assert.doesNotMatch(read.query, /"users"\."(status|role|subscription_tier)" (=|<>) \$/);
    // A value outside the sets is never written into a statement.
    await assert.rejects(createAccountsRepository(db).list({ role: "admin' OR true --" as never }, 0, 50), TypeError);
  });

  it('a search with a filter runs its statements where plans are made for their values', async () => {
    const { db, statements: sent } = recordingDb(t);
    const texts = () => sent.map((s) => s.query.trim());
    const page = await createAccountsRepository(db).list({ search: 'plans.example', role: 'admin' }, 0, 50);
    assert.deepEqual(
      page.rows.map((row) => row.email),
      ['plan-3@plans.example', 'plan-2@plans.example', 'plan-1@plans.example'],
    );
    const statements = texts();
    const custom = statements.findIndex((s) => /^SET LOCAL plan_cache_mode = force_custom_plan$/.test(s));
    assert.ok(custom >= 0, 'the search is planned for its values');
    // The planner's estimate (an EXPLAIN, planned for its values whatever the setting) and a walk
    // (none here: three admins) may come first (decision 410); the matches are read after it.
    const reads = statements.filter((s) => /FROM "users"/.test(s) && !s.startsWith('EXPLAIN'));
    assert.ok(reads.length > 0);
    assert.ok(statements.indexOf(reads[0]!) > custom, 'every read of the matches follows the setting');
    // Without a filter the search's ways are planned once, as before (decision 192).
    sent.length = 0;
    await createAccountsRepository(db).list({ search: 'plans.example' }, 0, 50);
    assert.ok(!texts().some((s) => s.startsWith('SET LOCAL')));
  });
});
