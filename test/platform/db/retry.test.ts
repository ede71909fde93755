// transactionRetrying (issue 37): a transaction PostgreSQL ends to break a deadlock runs again and
// commits; other failures are not retried; a conflict that keeps coming gives up after a few runs.
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { isRetriedConflict, transactionRetrying } from '../../../src/platform/db/retry.ts';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { withoutPostgres } from '../../helpers/services.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

/** What the driver throws, as drizzle wraps it. */
const wrapped = (code: string) => new Error('Failed query', { cause: Object.assign(new Error('driver'), { code }) });

describe('transactionRetrying', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('tells deadlocks and serialization failures from other errors, wrapped or not', () => {
    assert.ok(isRetriedConflict(wrapped('40P01')));
    assert.ok(isRetriedConflict(wrapped('40001')));
    assert.ok(isRetriedConflict(Object.assign(new Error('x'), { code: '40P01' })));
    assert.ok(!isRetriedConflict(wrapped('23505')));
    assert.ok(!isRetriedConflict(new Error('plain')));
  });

  it('runs again on a conflict, at most four times in all; never on another error', async () => {
    let runs = 0;
    await assert.rejects(
      transactionRetrying(t.database.db, async () => {
        runs += 1;
        throw wrapped('40P01');
      }),
      (error: Error) => isRetriedConflict(error),
    );
    assert.equal(runs, 4);
    runs = 0;
    await assert.rejects(
      transactionRetrying(t.database.db, async () => {
        runs += 1;
        throw wrapped('23505');
      }),
    );
    assert.equal(runs, 1);
    runs = 0;
    const answer = await transactionRetrying(t.database.db, async () => {
      runs += 1;
      if (runs < 3) throw wrapped('40001');
      return 'committed';
    });
    assert.deepEqual([answer, runs], ['committed', 3]);
  });

  it('commits both sides of a real deadlock: the one PostgreSQL ends runs again', {
    skip: withoutPostgres('a deadlock needs two real connections'),
  }, async () => {
    const table = sql.identifier(`retry_probe_${process.pid}`);
    await t.database.db.execute(sql`CREATE TABLE ${table} (id int PRIMARY KEY, n int NOT NULL)`);
    try {
      await t.database.db.execute(sql`INSERT INTO ${table} VALUES (1, 0), (2, 0)`);
      // Each side holds its first row before it asks for the other's: a deadlock on their first runs.
      let arrived = 0;
      let release!: () => void;
      const bothHold = new Promise<void>((resolve) => (release = resolve));
      const runs = { a: 0, b: 0 };
      const side = (name: 'a' | 'b', first: number, second: number) =>
        transactionRetrying(t.database.db, async (tx) => {
          runs[name] += 1;
          await tx.execute(sql`UPDATE ${table} SET n = n + 1 WHERE id = ${first}`);
          if (runs[name] === 1) {
            arrived += 1;
            if (arrived === 2) release();
            await bothHold;
          }
          await tx.execute(sql`UPDATE ${table} SET n = n + 1 WHERE id = ${second}`);
        });
      await Promise.all([side('a', 1, 2), side('b', 2, 1)]);
      assert.equal(runs.a + runs.b, 3, 'one side ran twice');
      const rows = await t.database.rows<{ n: number }>(sql`SELECT n FROM ${table} ORDER BY id`);
      assert.deepEqual(
        rows.map((row) => row.n),
        [2, 2],
        'each side committed once',
      );
    } finally {
      await t.database.db.execute(sql`DROP TABLE ${table}`);
    }
  });
});
