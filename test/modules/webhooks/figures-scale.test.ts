// The webhook figures the public health endpoints and the dashboard read cost what they show, not
// the table's size (decision 123). With 60,000 deliveries stored, every statement the repository
// runs for them is executed under EXPLAIN ANALYZE and the rows its scans read are counted: a few per
// provider, where reading the table would count them all (the positive control below does).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { WEBHOOK_PROVIDERS } from '../../../src/modules/webhooks/providers/registry.ts';
import { createDeliveryRepository } from '../../../src/modules/webhooks/webhooks.repository.ts';
import { executedPlan, planClient, plansOf, rowsRead, type PlanClient } from '../../helpers/plans.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

const ROWS = 60_000;

describe('webhook figures at scale', () => {
  let t: TestApp;
  let client: PlanClient;

  before(async () => {
    t = await buildTestApp();
    client = planClient(t);
    // Six of the eight providers, every status, spread over a year; the newest rows last.
    await t.database.rows(
      sql.raw(`
      INSERT INTO webhook_deliveries (provider, delivery_id, event, payload, received_at, status, processed_at, error)
      SELECT (ARRAY['codehost','payments','edge','tracker','errormon','mailer'])[1 + n % 6],
             'd-' || n, 'event', '{}'::jsonb,
             now() - make_interval(mins => ${ROWS} - n),
             (ARRAY['processed','processed','processed','failed','unmatched','superseded'])[1 + (n / 6) % 6],
             now() - make_interval(mins => ${ROWS} - n), CASE WHEN (n / 6) % 6 = 3 THEN 'boom ' || n END
      FROM generate_series(1, ${ROWS}) AS n`),
    );
    await t.database.rows(sql`ANALYZE webhook_deliveries`);
  });
  after(() => t.close());

  /** Runs `work` against the repository and answers the rows of webhook_deliveries each statement it ran read. */
  async function readsOf(
    work: (repo: ReturnType<typeof createDeliveryRepository>) => Promise<unknown>,
  ): Promise<number[]> {
    const plans = await plansOf(t, (db) => work(createDeliveryRepository(db, WEBHOOK_PROVIDERS)));
    assert.ok(plans.length > 0);
    return plans.map((plan) => rowsRead(plan, 'webhook_deliveries'));
  }

  it('reads a handful of rows per provider for each figure, and the figures are right', async () => {
    let figures: Record<string, unknown> = {};
    const reads = await readsOf(async (repo) => {
      figures = {
        unmatched: await repo.unmatchedCounts(),
        since: await repo.countsSince(new Date(Date.now() - 60 * 60_000)),
        outcomes: await repo.outcomes(),
        activity: await repo.activity(),
      };
    });
    // The counts read what they count: the unmatched rows (about 1 in 6) and the last hour's 60.
    assert.deepEqual(
      reads.map((n) => n <= 10_100),
      [true, true, true, true],
      `rows read: ${reads.join(', ')}`,
    );
    assert.ok(reads[1]! <= 100 && reads[2]! <= 100 && reads[3]! <= 100, `rows read: ${reads.join(', ')}`);
    const unmatched = figures.unmatched as Record<string, number>;
    // (n / 6) % 6 = 4, integer division, for 9,997 of n = 1..60,000.
    assert.equal(
      Object.values(unmatched).reduce((a, b) => a + b, 0),
      9_997,
    );
    assert.equal(unmatched.database, 0);
    const since = figures.since as Record<string, number>;
    assert.equal(
      Object.values(since).reduce((a, b) => a + b, 0),
      60,
    );
    const codehost = (figures.activity as { provider: string; lastDeliveryAt: Date | null }[]).find(
      (row) => row.provider === 'codehost',
    )!;
    assert.ok(codehost.lastDeliveryAt && Date.now() - codehost.lastDeliveryAt.getTime() < 60 * 60_000);
    const payments = (figures.outcomes as { provider: string; lastFailure: string | null }[]).find(
      (row) => row.provider === 'payments',
    )!;
    assert.match(payments.lastFailure!, /^boom \d+$/);
    const database = (
      figures.outcomes as { provider: string; lastSuccessAt: Date | null; lastFailure: string | null }[]
    ).find((row) => row.provider === 'database')!;
    assert.deepEqual([database.lastSuccessAt, database.lastFailure], [null, null]);
  });

  it('a figure read over the whole table counts every row (the positive control)', async () => {
    const plan = await executedPlan(
      client,
      "SELECT provider, max(processed_at) FROM webhook_deliveries WHERE status = 'processed' GROUP BY provider",
    );
    assert.ok(rowsRead(plan, 'webhook_deliveries') >= ROWS / 2);
  });
});
