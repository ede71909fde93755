// How many strategies are in each status is kept by the database (decision 931), whatever writes the
// strategies: creations, promotions, bulk inserts, status changes, deletions; an update of the figures
// alone leaves it as it is. The autopilot's `evaluated` is the count of those in paper.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { NOW } from '../jobs/jobs-fixtures.ts';

const GOOD = { paper_trades: 40, win_rate: 0.6, return_pct: 5, max_drawdown_pct: 2 };

describe('strategies per status, kept by the database', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp({ clock: fixedClock(NOW) });
  });
  after(() => t.close());

  const kept = async () =>
    Object.fromEntries(
      (await t.database.rows<{ status: string; n: number }>(sql`SELECT status, n FROM strategy_status_counts`)).map(
        (r) => [r.status, Number(r.n)],
      ),
    );
  const counted = async () =>
    Object.fromEntries(
      (
        await t.database.rows<{ status: string; n: number }>(
          sql`SELECT status, count(*)::int AS n FROM strategies GROUP BY status`,
        )
      ).map((r) => [r.status, Number(r.n)]),
    );

  it('follow every write of the strategies, and the autopilot counts those in paper from them', async () => {
    const { service } = t.modules.strategies;
    const old = new Date(NOW.getTime() - 30 * 86_400_000);
    await service.create({ name: 'draft' });
    for (let i = 0; i < 3; i++) await service.create({ name: `p${i}`, status: 'paper', paperStartedAt: old });
    await service.create({ name: 'good', status: 'paper', paperStartedAt: old, metrics: GOOD });
    assert.deepEqual(await kept(), { draft: 1, paper: 4 });

    const evaluation = await service.evaluatePaper(NOW, 10);
    assert.equal(evaluation.promoted, 1);
    assert.equal(evaluation.evaluated, 4);
    assert.equal(evaluation.held, 3);
    assert.deepEqual(await kept(), { draft: 1, paper: 3, live: 1 });

    await t.database.rows(sql`
      INSERT INTO strategies (name, status, paper_started_at)
      SELECT 'bulk ' || n, CASE WHEN n % 2 = 0 THEN 'paper' ELSE 'retired' END, now()
      FROM generate_series(1, 50) AS n`);
    // Figures only, then one status to another and back in one statement, then one moved for good.
    await t.database.rows(sql`UPDATE strategies SET metrics = '{"paper_trades": 1}'::jsonb WHERE status = 'paper'`);
    await t.database.rows(sql`UPDATE strategies SET status = status WHERE status = 'retired'`);
    await t.database.rows(sql`UPDATE strategies SET status = 'retired' WHERE name = 'draft'`);
    assert.deepEqual(await kept(), { paper: 28, live: 1, retired: 26 });
    await t.database.rows(sql`DELETE FROM strategies WHERE status = 'live' OR name LIKE 'bulk 1%'`);
    assert.deepEqual(await kept(), await counted());
    assert.equal((await service.evaluatePaper(NOW, 10)).evaluated, (await counted()).paper);
    await t.database.rows(sql`TRUNCATE strategies CASCADE`);
    assert.deepEqual(await kept(), {});
    assert.equal((await service.evaluatePaper(NOW, 10)).evaluated, 0);
  });
});
