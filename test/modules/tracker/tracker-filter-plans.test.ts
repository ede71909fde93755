// The local tracker's issues filtered by a rare state or assignee (decision 1410): among thousands of
// completed issues, the few started ones, or the few of one person, are read through an index in the list's
// order, not by walking every issue in the order of their last change. The app plans each statement once for
// any value (decision 401); the states' ids are written into the text, an assignee's page is planned for it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import type { Db } from '../../../src/platform/db/database.ts';
import { createTrackerRepository } from '../../../src/modules/tracker/tracker.repository.ts';
import { analyzeUntil, recordingDb, rowsReadPlannedForValues, rowsReadUnderGenericPlans } from '../../helpers/plans.ts';
import { signIn } from '../../helpers/test-app.ts';
import { type LocalTracker, startLocalTracker, TEAM } from './tracker-local-fixtures.ts';

const ISSUES = 6_000;

describe('tracker: a filter of the issues is read by its index for any value', () => {
  let tracker: LocalTracker;
  let rare: string;
  const query = { stateTypes: [] as string[], stateNames: [] as string[], limit: 50 };

  before(async () => {
    tracker = await startLocalTracker(fixedClock(new Date('2026-01-01T00:00:00Z')));
    const { t } = tracker;
    await tracker.create(); // the default team and its states
    rare = (await signIn(t.app, t.database, { email: 'rare@example.com' })).id;
    const common = [
      (await signIn(t.app, t.database, { email: 'common-1@example.com' })).id,
      (await signIn(t.app, t.database, { email: 'common-2@example.com' })).id,
    ];
    // The rare ones changed longest ago: the order of last change reaches them last.
    await t.database.db.execute(sql`
      INSERT INTO tracker_issues (team_id, number, identifier, title, state_id, assignee_id, created_at, updated_at)
      SELECT ${TEAM}, 1000 + i, 'PLAN-' || i, 'plan ' || i,
        (SELECT id FROM tracker_workflow_states WHERE team_id = ${TEAM}
          AND type = CASE WHEN i <= 3 THEN 'started' ELSE 'completed' END ORDER BY position LIMIT 1),
        CASE WHEN i > 3 AND i <= 6 THEN ${rare}::uuid WHEN i % 2 = 0 THEN ${common[0]}::uuid ELSE ${common[1]}::uuid END,
        timestamptz '2025-01-01T00:00:00Z' + i * interval '1 minute',
        timestamptz '2025-01-01T00:00:00Z' + i * interval '1 minute'
      FROM generate_series(1, ${ISSUES}) AS i`);
    // A label on the three oldest issues, and another on every other issue.
    const [rareLabel, commonLabel] = await tracker.fileLabels(['rare-label', 'common-label']);
    await t.database.db.execute(sql`
      INSERT INTO tracker_issue_labels (issue_id, label_id)
      SELECT id, CASE WHEN number <= 1003 THEN ${rareLabel}::uuid ELSE ${commonLabel}::uuid END
      FROM tracker_issues WHERE identifier LIKE 'PLAN-%'`);
    await t.database.db.execute(sql`ANALYZE tracker_issues`);
    await t.database.db.execute(sql`ANALYZE tracker_issue_labels`);
  });
  after(() => tracker.t.close());

  const readUnderGenericPlans = (work: (db: Db) => Promise<unknown>) =>
    rowsReadUnderGenericPlans(tracker.t, 'tracker_issues', work);
  const started = (db: Db) => createTrackerRepository(db).listIssues({ ...query, stateTypes: ['started'] });

  it('a rare state: its page reads its own issues under the one plan, not every issue', async () => {
    const read = await readUnderGenericPlans(async (db) => {
      const page = await started(db);
      assert.equal(page.issues.filter((issue) => issue.identifier.startsWith('PLAN-')).length, 3);
    });
    assert.ok(read < 100, `read ${read} issues for a page of 3`);
  });

  it('a rare state its statistics never saw: its page still reads its own issues', async () => {
    const { t } = tracker;
    try {
      const unseen = await analyzeUntil(t, 'tracker_issues', async () => {
        const [stats] = await t.database.rows<{ n_distinct: number }>(
          sql`SELECT n_distinct FROM pg_stats WHERE tablename = 'tracker_issues' AND attname = 'state_id'`,
        );
        return Number(stats?.n_distinct) === 1;
      });
      assert.ok(unseen, 'a sample without the started issues');
      const read = await readUnderGenericPlans(async (db) => {
        const page = await started(db);
        assert.equal(page.issues.filter((issue) => issue.identifier.startsWith('PLAN-')).length, 3);
      });
      assert.ok(read < 100, `read ${read} issues for a page of 3`);
    } finally {
      await t.database.db.execute(sql`ANALYZE tracker_issues`);
    }
  });

  it('a rare assignee: the page is planned for its value, and reads their issues', async () => {
    const read = await rowsReadPlannedForValues(tracker.t, 'tracker_issues', async (db) => {
      const page = await createTrackerRepository(db).listIssues({ ...query, assigneeId: rare });
      assert.equal(page.issues.length, 3);
    });
    assert.ok(read < 100, `read ${read} issues for a page of 3`);
  });

  it('a rare label: its page reads its own issues under the one plan, not every issue', async () => {
    const read = await readUnderGenericPlans(async (db) => {
      const page = await createTrackerRepository(db).listIssues({ ...query, label: 'Rare-Label' });
      // The three planted, and the issue the labels were filed with.
      assert.equal(page.issues.filter((issue) => issue.identifier.startsWith('PLAN-')).length, 3);
      assert.equal(page.issues.length, 4);
    });
    assert.ok(read < 100, `read ${read} issues for a page of 3`);
  });

  it("the states' ids are written into the page's text; a state's type or name and an assignee are bound", async () => {
    const { db, statements } = recordingDb(tracker.t);
    await createTrackerRepository(db).listIssues({ ...query, stateTypes: ['started'], stateNames: ['Done'] });
    const [states, issues] = statements;
    assert.match(states!.query, /from "tracker_workflow_states"/);
    assert.deepEqual(states!.params, ['started', 'done']);
    assert.match(issues!.query, /"tracker_issues"\."state_id" IN \('[0-9a-f-]{36}'::uuid, '[0-9a-f-]{36}'::uuid\)/);
    assert.doesNotMatch(issues!.query, /started|done/i);
    // No state of that type or name: no issue, and no read of the issues.
    statements.length = 0;
    const none = await createTrackerRepository(db).listIssues({ ...query, stateNames: ['no such state'] });
    assert.deepEqual(none, { issues: [], hasMore: false });
    assert.equal(statements.length, 1);
  });
});
