// The task board past its first thousand rows starts a page at the day its first row falls in, from
// the counts the database keeps per status and day (decision 195), and skips only that day's rows.
// Every page must be exactly the page a plain `ORDER BY created_at DESC, id DESC OFFSET … LIMIT …`
// gives, and a deep page must not read the rows before its day.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../../src/platform/db/database.ts';
import { createTasksRepository } from '../../../src/modules/command-center/tasks.repository.ts';
import { plansOf, rowsRead } from '../../helpers/plans.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const TASKS = 3_000;
const DAYS = 11;

describe('command center: deep pages of the task board', () => {
  let t: TestApp;
  let admin: TestUser;

  before(async () => {
    t = await buildTestApp();
    admin = await signIn(t.app, t.database, { role: 'admin' });
    // Written as a bulk import writes them: the kept counts follow by the database's own triggers.
    // Eleven UTC days, uneven per day, several tasks per instant (the id decides their order), and
    // every status, priority and source, so that filters change where a page starts.
    await t.database.db.execute(sql`
      INSERT INTO command_center_tasks (title, repo, status, priority, assignee, source_type, created_at)
      SELECT 'deep ' || i, 'acme/repo',
        (ARRAY['todo', 'in_progress', 'blocked', 'in_review', 'done', 'cancelled'])[1 + i % 6],
        (ARRAY['critical', 'high', 'medium', 'low'])[1 + i % 4],
        CASE WHEN i % 3 = 0 THEN 'agent-' || i % 5 END,
        (ARRAY['human', 'agent', 'system', 'webhook'])[1 + i % 4],
        timestamptz '2025-03-01T00:00:00Z' + ((i * i) % ${DAYS}) * interval '1 day' + (i % 37) * interval '1 minute'
      FROM generate_series(1, ${TASKS}) AS i`);
    // A task moved to another day after it was written (its day count follows), and one deleted.
    await t.database.db.execute(sql`
      UPDATE command_center_tasks SET created_at = created_at - interval '3 days', status = 'done'
      WHERE title IN ('deep 17', 'deep 1700')`);
    await t.database.db.execute(sql`DELETE FROM command_center_tasks WHERE title = 'deep 1234'`);
  });
  after(() => t.close());

  const expected = async (where: string, offset: number, limit: number) =>
    rowsOf<{ id: string }>(
      await t.database.db.execute(
        sql.raw(
          `SELECT id FROM command_center_tasks WHERE ${where} ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT ${limit}`,
        ),
      ),
    ).map((r) => r.id);

  const countOf = async (where: string) =>
    rowsOf<{ n: number }>(
      await t.database.db.execute(sql.raw(`SELECT count(*)::int AS n FROM command_center_tasks WHERE ${where}`)),
    )[0]!.n;

  const listed = async (query: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/admin/command-center/tasks?${query}`,
      headers: admin.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as { tasks: { id: string }[]; total: number };
    return { ids: body.tasks.map((task) => task.id), total: body.total };
  };

  it('answers every deep page as the plain ordered query does, across day boundaries', async () => {
    const n = await countOf('true');
    assert.equal(n, TASKS - 1);
    for (const limit of [200, 37]) {
      for (let offset = 1_000 - (1_000 % limit); offset <= n; offset += limit) {
        const { ids, total } = await listed(`offset=${offset}&limit=${limit}`);
        assert.equal(total, n);
        assert.deepEqual(ids, await expected('true', offset, limit), `offset ${offset}, limit ${limit}`);
      }
    }
  });

  it('starts a deep page at the right day under filters, and past the end answers none with the total', async () => {
    const cases = [
      { query: 'status=todo', where: `status = 'todo'` },
      { query: 'status=done', where: `status = 'done'` },
      // Filters the day counts do not keep: the page skips its rows one by one, with the same answer.
      { query: 'priority=high', where: `priority = 'high'` },
      { query: 'status=in_review&source_type=agent', where: `status = 'in_review' AND source_type = 'agent'` },
    ];
    for (const { query, where } of cases) {
      const n = await countOf(where);
      for (const offset of [0, 990, 1_000, 1_010, n - 10, n].filter((o) => o >= 0 && o <= n)) {
        const { ids, total } = await listed(`${query}&offset=${offset}&limit=10`);
        assert.equal(total, n, query);
        assert.deepEqual(ids, await expected(where, offset, 10), `${query} offset ${offset}`);
      }
    }
    const { ids, total } = await listed('offset=100000&limit=100');
    assert.deepEqual(ids, []);
    assert.equal(total, TASKS - 1);
  });

  it("reads a deep page's day and the page, not every task before it", async () => {
    const offset = 2_500;
    const [{ perDay }] = rowsOf<{ perDay: number }>(
      await t.database.db.execute(sql`SELECT max(n)::int AS "perDay" FROM (
        SELECT count(*) AS n FROM command_center_tasks GROUP BY (created_at AT TIME ZONE 'UTC')::date) AS days`),
    ) as [{ perDay: number }];
    // Skipping every row before the page would read offset + 50 of them.
    assert.ok(perDay + 50 < offset, `${perDay} tasks on the fullest day`);
    let listedIds: string[] = [];
    const plans = await plansOf(t, async (db) => {
      const { entries } = await createTasksRepository(db).list({ limit: 50, offset });
      listedIds = entries.map((entry) => entry.row.id);
    });
    assert.equal(plans.length, 1, 'one statement');
    assert.deepEqual(listedIds, await expected('true', offset, 50));
    const read = rowsRead(plans[0]!, 'command_center_tasks');
    assert.ok(read < perDay + 50, `tasks read for offset ${offset}: ${read}`);
  });
});
