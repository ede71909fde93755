// The autopilot's paper evaluation with thousands of strategies in paper that it cannot promote (figures
// short of the rules, or in paper for too few days): the statements it runs are executed again under
// EXPLAIN ANALYZE, and the strategy rows they hand back and the rows their scans read are counted. It
// loads the few it can promote, at most the limit of each owner, where it loaded every one (decision 851),
// and reads how many are in paper from the count the database keeps (decision 931).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createStrategiesRepository } from '../../../src/modules/strategies/strategies.repository.ts';
import { createStrategiesService, type PaperEvaluation } from '../../../src/modules/strategies/strategies.service.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { rowsRead, statementPlansOf } from '../../helpers/plans.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';
import { NOW } from '../jobs/jobs-fixtures.ts';

const HELD = 3_000;
const GOOD = `'{"paper_trades": 40, "win_rate": 0.6, "return_pct": 5, "max_drawdown_pct": 2}'::jsonb`;

describe('strategy autopilot with many strategies in paper', () => {
  let t: TestApp;
  let owner: string;

  before(async () => {
    t = await buildTestApp({ clock: fixedClock(NOW) });
    owner = (await signIn(t.app, t.database)).id;
    const now = `'${NOW.toISOString()}'::timestamptz`;
    // Held: a third in paper 30 days with a loss, a third with too few trades, a third with good figures
    // but in paper 3 days. Eligible: 3 of one user (limit 2), 2 platform strategies.
    await t.database.rows(
      sql.raw(`
      INSERT INTO strategies (name, owner_user_id, status, paper_started_at, metrics, created_at, updated_at)
      SELECT 'held ' || n, NULL, 'paper',
             ${now} - make_interval(days => CASE WHEN n % 3 = 2 THEN 3 ELSE 30 END),
             CASE n % 3 WHEN 0 THEN '{"paper_trades": 40, "win_rate": 0.6, "return_pct": -1, "max_drawdown_pct": 2}'::jsonb
                        WHEN 1 THEN '{"paper_trades": 12, "win_rate": 0.6, "return_pct": 5, "max_drawdown_pct": 2}'::jsonb
                        ELSE ${GOOD} END,
             ${now} - interval '40 days', ${now}
      FROM generate_series(1, ${HELD}) AS n`),
    );
    await t.database.rows(
      sql.raw(`
      INSERT INTO strategies (name, owner_user_id, status, paper_started_at, metrics, created_at, updated_at)
      SELECT 'eligible ' || n, CASE WHEN n <= 3 THEN '${owner}'::uuid END, 'paper',
             ${now} - make_interval(days => 20 + n), ${GOOD}, ${now} - interval '40 days', ${now}
      FROM generate_series(1, 5) AS n`),
    );
    await t.database.rows(sql`ANALYZE strategies`);
  });
  after(() => t.close());

  it('loads only the strategies it can promote, reads few more, and counts the others', async () => {
    let evaluation: PaperEvaluation | undefined;
    const statements = await statementPlansOf(
      t,
      async (db) => {
        const service = createStrategiesService({ db, repo: createStrategiesRepository(db), clock: fixedClock(NOW) });
        evaluation = await service.evaluatePaper(NOW, 2);
      },
      { readsOnly: true },
    );
    assert.deepEqual(
      { ...evaluation, promotedIds: evaluation!.promotedIds.length },
      {
        evaluated: HELD + 5,
        eligible: 5,
        promoted: 4,
        deferred: 1,
        held: HELD,
        limitPerHour: 2,
        transitionsLastHour: 0,
        promotedIds: 4,
      },
    );
    // Rows handed back by the statements that read strategies.
    const reads = statements.filter((s) => /from "strategies"/i.test(s.query) && /^\s*select/i.test(s.query));
    const returned = reads.reduce((sum, s) => sum + s.plan['Actual Rows'], 0);
    assert.ok(returned <= 10, `strategy rows returned: ${returned}`);
    // The rows read by every statement, the count of those in paper too: it reads the row the database
    // keeps (decision 931), where it read the status index's entry of every strategy in paper.
    const read = statements.reduce((sum, s) => sum + rowsRead(s.plan, 'strategies'), 0);
    assert.ok(read <= 40, `strategy rows read: ${read}`);
  });
});
