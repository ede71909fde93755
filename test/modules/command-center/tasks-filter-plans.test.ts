// The task board filtered by a rare value (decision 1400): a board that has run a while holds thousands of
// tasks done and a few in progress, blocked or critical. The page of those few reads a few index entries,
// not every task in the date order, under the app's one plan for any value (decision 401), and even when
// the statistics never saw the value (decision 1360's trap). A status, priority or source is written into
// the page's text. A common value whose tasks are all old, a backlog behind everything done since, is
// read from its own index too (decision 1450). An assignee is bound, under the same one plan: its page
// reads the days that hold it, from its counts per day (decision 1470).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Db } from '../../../src/platform/db/database.ts';
import { createTasksRepository } from '../../../src/modules/command-center/tasks.repository.ts';
import { analyzeUntil, genericPlan, recordingDb, rowsReadUnderGenericPlans, scansOf } from '../../helpers/plans.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

const TASKS = 6_000;
/**
 * A backlog of tasks to do, all older than the board's other tasks: the date order reaches them last.
 * One every 10 minutes, 144 a day over 7 days.
 */
const BACKLOG = 1_000;
/** Whom the backlog is assigned to: an assignee as common as a status, whose tasks are all old. */
const BACKLOG_OWNER = 'agent-backlog';

describe('command center: a filter of the task board is read by its index for any value', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp();
    // The backlog is stored first, as it was made first: the table's order is the date order.
    await t.database.db.execute(sql`
      INSERT INTO command_center_tasks (title, repo, status, priority, assignee, source_type, created_at)
      SELECT 'backlog ' || i, 'acme/repo', 'todo', 'low', ${BACKLOG_OWNER}, 'agent',
        timestamptz '2024-01-01T00:00:00Z' + i * interval '10 minutes'
      FROM generate_series(1, ${BACKLOG}) AS i`);
    // The rare ones are the board's oldest tasks after the backlog: the date order reaches them late.
    await t.database.db.execute(sql`
      INSERT INTO command_center_tasks (title, repo, status, priority, assignee, source_type, created_at)
      SELECT 'board ' || i, 'acme/repo',
        CASE WHEN i <= 3 THEN 'blocked' WHEN i <= 6 THEN 'in_progress' ELSE 'done' END,
        CASE WHEN i > 6 AND i <= 9 THEN 'critical' ELSE 'medium' END,
        CASE WHEN i > 9 AND i <= 12 THEN 'agent-rare' ELSE 'agent-' || i % 2 END,
        CASE WHEN i > 12 AND i <= 15 THEN 'webhook' ELSE 'agent' END,
        timestamptz '2025-01-01T00:00:00Z' + i * interval '1 minute'
      FROM generate_series(1, ${TASKS}) AS i`);
    await t.database.db.execute(sql`ANALYZE command_center_tasks`);
  });
  after(() => t.close());

  const readUnderGenericPlans = (work: (db: Db) => Promise<unknown>) =>
    rowsReadUnderGenericPlans(t, 'command_center_tasks', work);

  for (const [name, filter] of [
    ['a rare status', { status: 'blocked' }],
    ['another rare status', { status: 'in_progress' }],
    ['a rare priority', { priority: 'critical' }],
    ['a rare source', { sourceType: 'webhook' }],
  ] as const) {
    it(`${name}: its page reads its own tasks under the one plan, not the board`, async () => {
      const read = await readUnderGenericPlans(async (db) => {
        const page = await createTasksRepository(db).list({ ...filter, limit: 50, offset: 0 });
        assert.equal(page.entries.length, 3);
        assert.equal(page.total, 3);
      });
      assert.ok(read < 100, `read ${read} tasks for a page of 3`);
    });
  }

  for (const [name, filter] of [
    ['a common status', { status: 'todo' }],
    ['a common priority', { priority: 'low' }],
  ] as const) {
    it(`${name} whose tasks are all old: its page reads its newest tasks, not the board before them`, async () => {
      // The planner expects a seventh of the date order to match, spread evenly; every match comes after
      // the 6,000 others. The value's own index in the date order reads the page and no more (decision 1450).
      const read = await readUnderGenericPlans(async (db) => {
        const page = await createTasksRepository(db).list({ ...filter, limit: 50, offset: 0 });
        assert.equal(page.entries.length, 50);
        assert.equal(page.total, BACKLOG);
        assert.equal(page.entries[0]!.row.title, `backlog ${BACKLOG}`);
      });
      assert.ok(read < 100, `read ${read} tasks for a page of 50`);
    });
  }

  it('a rare assignee: its page reads its own tasks under the one plan', async () => {
    const read = await readUnderGenericPlans(async (db) => {
      const page = await createTasksRepository(db).list({ assignee: 'agent-rare', limit: 50, offset: 0 });
      assert.equal(page.entries.length, 3);
    });
    assert.ok(read < 100, `read ${read} tasks for a page of 3`);
  });

  for (const [offset, days] of [
    [0, 1],
    [540, 2],
  ] as const)
    it(`a common assignee whose tasks are all old: its page ${offset} deep reads the days that hold it, not the board`, async () => {
      // An assignee is bound and has no index of its own; its counts per day bound the page to the days of
      // its tasks that hold it (decision 1470). Read in the date order before, the first page read all
      // 6,000 newer tasks first. 540 deep, the page's 50 span the backlog's fourth and fifth days from its
      // newest (136 tasks in its newest day, then 144 a day); without the walk's start it skips all 540.
      const read = await readUnderGenericPlans(async (db) => {
        const page = await createTasksRepository(db).list({ assignee: BACKLOG_OWNER, limit: 50, offset });
        assert.equal(page.entries.length, 50);
        assert.equal(page.total, BACKLOG);
        assert.equal(page.entries[0]!.row.title, `backlog ${BACKLOG - offset}`);
      });
      assert.ok(read <= days * 144, `read ${read} tasks for a page of 50: more than its ${days} days hold`);
    });

  it("an assignee's pages, under any other filter and at any depth, are the plain query's", async () => {
    // Across day boundaries (the board's tasks span five days, the backlog's seven) and past the end.
    const filters = [
      { assignee: 'agent-1' },
      { assignee: 'agent-0', status: 'done' },
      { assignee: BACKLOG_OWNER, priority: 'low' },
      { assignee: BACKLOG_OWNER, status: 'done' },
      { assignee: 'agent-rare', sourceType: 'agent' },
      { assignee: 'nobody' },
    ] as const;
    for (const filter of filters) {
      const condition = sql.join(
        [
          sql`assignee = ${filter.assignee}`,
          ...('status' in filter ? [sql`status = ${filter.status}`] : []),
          ...('priority' in filter ? [sql`priority = ${filter.priority}`] : []),
          ...('sourceType' in filter ? [sql`source_type = ${filter.sourceType}`] : []),
        ],
        sql` AND `,
      );
      const [{ n }] = (await t.database.rows<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM command_center_tasks WHERE ${condition}`,
      )) as [{ n: number }];
      for (const [offset, limit] of [
        [0, 50],
        [0, 200],
        [49, 3],
        [140, 10],
        [1_000, 50],
        [1_430, 20],
        [2_990, 50],
        [n - 1, 5],
        [n, 5],
        [n + 100, 5],
      ] as const) {
        if (offset < 0) continue;
        const at = `${JSON.stringify(filter)} at ${offset}, ${limit}`;
        const expected = await t.database.rows<{ id: string }>(
          sql`SELECT id FROM command_center_tasks WHERE ${condition}
              ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`,
        );
        const page = await createTasksRepository(t.database.db).list({ ...filter, limit, offset });
        assert.deepEqual(
          page.entries.map((e) => e.row.id),
          expected.map((r) => r.id),
          at,
        );
        assert.equal(page.total, n, at);
      }
    }
  });

  it('a rare status its statistics never saw: its page still reads its own tasks, not the date order', async () => {
    // A sample of 300 tasks misses the three blocked ones about six times in seven; sampled until it does.
    try {
      const unseen = await analyzeUntil(t, 'command_center_tasks', async () => {
        const [stats] = await t.database.rows<{ values: string }>(
          sql`SELECT most_common_vals::text AS values FROM pg_stats
              WHERE tablename = 'command_center_tasks' AND attname = 'status'`,
        );
        return !stats?.values.includes('blocked');
      });
      assert.ok(unseen, 'a sample without the blocked tasks');
      const read = await readUnderGenericPlans(async (db) => {
        const page = await createTasksRepository(db).list({ status: 'blocked', limit: 50, offset: 0 });
        assert.equal(page.entries.length, 3);
      });
      assert.ok(read < 100, `read ${read} tasks for a page of 3`);
    } finally {
      await t.database.db.execute(sql`ANALYZE command_center_tasks`);
    }
  });

  it("a page is planned for its closed sets' values: they are in its text, not bound; others are refused", async () => {
    const { db, statements } = recordingDb(t);
    const page = await createTasksRepository(db).list({
      status: 'done',
      priority: 'medium',
      sourceType: 'agent',
      assignee: 'agent-1',
      limit: 5,
      offset: 0,
    });
    assert.equal(page.entries.length, 5);
    const [read] = statements.filter((s) => /FROM "command_center_tasks"/.test(s.query));
    assert.ok(read, 'the page read the tasks');
    assert.match(read.query, /"command_center_tasks"\."status" = 'done'/);
    assert.match(read.query, /"command_center_tasks"\."priority" = 'medium'/);
    assert.match(read.query, /"command_center_tasks"\."source_type" = 'agent'/);
    assert.match(read.query, /"command_center_tasks"\."assignee" = \$\d+/);
    assert.ok(read.params.includes('agent-1'));
    // A value outside the sets is never written into a statement (the route's schema refuses it first).
    await assert.rejects(
      createTasksRepository(db).list({ status: "done' OR true --" as never, limit: 5, offset: 0 }),
      TypeError,
    );
  });
});

describe("command center: an assignee's total among many assignees", () => {
  const ASSIGNEES = 3_000;
  let t: TestApp;

  before(async () => {
    t = await buildTestApp();
    // One task for each of 3,000 assignees, and five for one of them, in two statuses.
    await t.database.db.execute(sql`
      INSERT INTO command_center_tasks (title, repo, status, priority, assignee, source_type, created_at)
      SELECT 'task ' || i, 'acme/repo', CASE WHEN i % 2 = 0 THEN 'done' ELSE 'todo' END, 'medium',
        'agent-' || CASE WHEN i > ${ASSIGNEES} THEN 7 ELSE i END, 'agent',
        timestamptz '2025-01-01T00:00:00Z' + i * interval '1 minute'
      FROM generate_series(1, ${ASSIGNEES + 4}) AS i`);
    await t.database.db.execute(sql`ANALYZE command_center_tasks, command_center_task_counts`);
  });
  after(() => t.close());

  it("reads that assignee's counts by their index, not every assignee's (decision 1500)", async () => {
    const { db, statements } = recordingDb(t);
    const page = await createTasksRepository(db).list({ assignee: 'agent-7', limit: 50, offset: 0 });
    assert.equal(page.entries.length, 5);
    assert.equal(page.total, 5);
    const scans: string[] = [];
    for (const { query, params } of statements)
      scans.push(...scansOf(await genericPlan(t, query, params), 'command_center_task_counts'));
    // Through the key, which leads with the status, an index scan walks every assignee's entries and
    // reads as few rows as this one: the index it takes is what tells.
    assert.ok(scans.length > 0, 'the page reads the counts for its total');
    for (const scan of scans) assert.match(scan, /command_center_task_counts_assignee_idx$/);
  });
});
