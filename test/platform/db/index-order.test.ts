// Descending sorts in the order the indexes keep (decision 122): Drizzle writes an index's `.desc()`
// as DESC NULLS LAST while its `desc()` in an ORDER BY means DESC NULLS FIRST, and PostgreSQL serves
// an ORDER BY from an index only in the index's own order. With sorting made prohibitively dear,
// the plan shows whether the index serves the order or the rows are read and sorted.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { desc, sql, type SQL } from 'drizzle-orm';
import { marketIntelEvents } from '../../../src/modules/command-center/command-center.tables.ts';
import { DEFAULT_HORIZON_MS } from '../../../src/modules/command-center/intel-scoring.domain.ts';
import { createIntelRepository } from '../../../src/modules/command-center/intel.repository.ts';
import { descending } from '../../../src/platform/db/order.ts';
import { PROJECT_ROOT } from '../../../src/platform/project-root.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const location = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(location) : entry.name.endsWith('.ts') ? [location] : [];
  });
}

describe('descending order and the indexes', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  /**
   * The plan of the intel feed's query in that order, with sorting made prohibitively dear (in
   * one transaction, one connection).
   */
  async function plan(order: SQL[]): Promise<string> {
    const { sql: text, params } = t.database.db
      .select()
      .from(marketIntelEvents)
      .orderBy(...order)
      .limit(20)
      .toSQL();
    const inlined = text.replace(/\$(\d+)/g, (_, n: string) => String(params[Number(n) - 1]));
    const rows = await t.database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_sort = off`);
      return ((await tx.execute(sql.raw(`EXPLAIN ${inlined}`))) as unknown as { rows: { 'QUERY PLAN': string }[] })
        .rows;
    });
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  }

  it("is served by the index with the helper, and read and sorted with Drizzle's desc()", async () => {
    const helper = await plan([descending(marketIntelEvents.detectedAt), descending(marketIntelEvents.id)]);
    assert.match(helper, /Index Scan using market_intel_events_detected_idx/);
    assert.doesNotMatch(helper, /Sort/);
    const drizzle = await plan([desc(marketIntelEvents.detectedAt), desc(marketIntelEvents.id)]);
    assert.match(drizzle, /Sort/, 'the positive control: the mismatched order is sorted');
  });

  it("reads the scoring job's queue from its index, first rows first, with no sort", async () => {
    const query = createIntelRepository(t.database.db).maturedUnscored(new Date(), 200);
    const { sql: text, params } = query.toSQL();
    const inlined = text.replace(/\$(\d+)/g, (_, n: string) => `'${String(params[Number(n) - 1])}'`);
    const rows = await t.database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_sort = off`);
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      return ((await tx.execute(sql.raw(`EXPLAIN ${inlined}`))) as unknown as { rows: { 'QUERY PLAN': string }[] })
        .rows;
    });
    const planText = rows.map((row) => row['QUERY PLAN']).join('\n');
    // The index's predicate is the query's own: a give-up count changed in the code and not in the
    // index shows here as a sort.
    assert.match(planText, /Index Scan using market_intel_events_scoring_queue_idx/, planText);
    assert.doesNotMatch(planText, /Sort/, planText);
  });

  it("the database's horizon is the domain's: the expiry, else the default horizon after detection", async () => {
    const detected = '2026-03-29T00:30:00.000Z';
    const [row] = (
      (await t.database.db.execute(sql`SELECT
        intel_horizon(NULL, ${detected}::timestamptz) AS "byDefault",
        intel_horizon('2026-04-01T00:00:00Z'::timestamptz, ${detected}::timestamptz) AS explicit`)) as unknown as {
        rows: { byDefault: Date | string; explicit: Date | string }[];
      }
    ).rows;
    assert.equal(new Date(row!.byDefault).getTime(), Date.parse(detected) + DEFAULT_HORIZON_MS);
    assert.equal(new Date(row!.explicit).toISOString(), '2026-04-01T00:00:00.000Z');
  });

  it("no source file sorts with Drizzle's desc()", () => {
    const offenders = sourceFiles(path.join(PROJECT_ROOT, 'src')).filter((file) =>
      /import \{[^}]*\bdesc\b[^}]*\} from 'drizzle-orm'/.test(readFileSync(file, 'utf8')),
    );
    assert.deepEqual(
      offenders.map((file) => path.relative(PROJECT_ROOT, file)),
      [],
    );
  });
});
