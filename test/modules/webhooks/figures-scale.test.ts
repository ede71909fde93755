// The webhook figures the public health endpoints and the dashboard read cost what they show, not
// the table's size (decision 123). With 60,000 deliveries stored, every statement the repository
// runs for them is executed under EXPLAIN ANALYZE and the rows its scans read are counted: a few per
// provider, where reading the table would count them all (the positive control below does).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres';
import { WEBHOOK_PROVIDERS } from '../../../src/config/config.ts';
import { createDeliveryRepository } from '../../../src/modules/webhooks/webhooks.repository.ts';
import type { Db } from '../../../src/platform/db/database.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

const ROWS = 60_000;

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** Rows the plan's scans of webhook_deliveries read: returned or filtered out, over every loop. */
function rowsRead(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'webhook_deliveries'
      ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops']
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

describe('webhook figures at scale', () => {
  let t: TestApp;
  /** PGlite, or the pg pool on PostgreSQL: both answer query(text, params) with rows. */
  let client: { query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }> };

  before(async () => {
    t = await buildTestApp();
    client = (t.database.db as unknown as { $client: typeof client }).$client;
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

  /** Runs `work` against the repository and answers the rows read by each statement it ran. */
  async function readsOf(
    work: (repo: ReturnType<typeof createDeliveryRepository>) => Promise<unknown>,
  ): Promise<number[]> {
    const statements: { query: string; params: unknown[] }[] = [];
    const logger = { logQuery: (query: string, params: unknown[]) => statements.push({ query, params }) };
    const db = (t.database.kind === 'postgres'
      ? drizzlePostgres({ client: client as never, logger })
      : drizzlePglite({ client: client as never, logger })) as unknown as Db;
    await work(createDeliveryRepository(db, WEBHOOK_PROVIDERS));
    assert.ok(statements.length > 0);
    const reads: number[] = [];
    for (const { query, params } of statements) {
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${query}`,
        params,
      );
      reads.push(rowsRead(rows[0]!['QUERY PLAN'][0].Plan));
    }
    return reads;
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
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      'EXPLAIN (ANALYZE, FORMAT JSON) SELECT provider, max(processed_at) FROM webhook_deliveries ' +
        "WHERE status = 'processed' GROUP BY provider",
    );
    assert.ok(rowsRead(rows[0]!['QUERY PLAN'][0].Plan) >= ROWS / 2);
  });
});
