import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import { auditLog } from '../../../src/platform/db/schema.ts';
import { signIn, type TestApp } from '../../helpers/test-app.ts';
import { ISO, type LocalTracker, startLocalTracker, TEAM } from './tracker-local-fixtures.ts';

// Creating, reading, changing and listing issues. Agents' filings and who may call are in
// tracker-local-agents.test.ts.
describe('tracker on the local backend', () => {
  let t: TestApp;
  let call: LocalTracker['call'];
  let create: LocalTracker['create'];
  let fileLabels: LocalTracker['fileLabels'];
  let admin: LocalTracker['admin'];
  const clock = fixedClock(new Date());
  before(async () => {
    ({ t, call, create, fileLabels, admin } = await startLocalTracker(clock));
  });
  after(async () => {
    await t.close();
  });

  describe('health', () => {
    it('answers the local backend, reachable, with the seeded default team', async () => {
      const response = await call('GET', '/api/v1/tracker/health');
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.backend, 'local');
      assert.equal(body.reachable, true);
      assert.equal(typeof body.latency_ms, 'number');
      assert.equal(body.default_team_id, TEAM);
      assert.match(body.detail, /database/);
    });
  });

  describe('create', () => {
    it('creates a backlog issue with priority 0 and a team-scoped identifier, shaped like Linear', async () => {
      const response = await call('POST', '/api/v1/tracker/issues', {
        teamId: TEAM,
        title: 'Order book freezes',
        description: 'Steps: *open* it',
      });
      assert.equal(response.statusCode, 201);
      const issue = response.json();
      assert.match(issue.id, /^[0-9a-f-]{36}$/);
      assert.match(issue.identifier, /^ENG-\d+$/);
      assert.equal(issue.title, 'Order book freezes');
      assert.equal(issue.description, 'Steps: *open* it');
      assert.equal(issue.priority, 0);
      assert.equal(issue.priorityLabel, 'No priority');
      assert.deepEqual({ name: issue.state.name, type: issue.state.type }, { name: 'Backlog', type: 'backlog' });
      assert.deepEqual(issue.team, { id: TEAM, key: 'ENG', name: 'Engineering' });
      assert.equal(issue.assignee, null);
      assert.deepEqual(issue.labels, []);
      assert.equal(issue.estimate, null);
      assert.equal(issue.dueDate, null);
      assert.equal(issue.agentId, null);
      assert.equal(issue.url, `/api/v1/tracker/issues/${issue.identifier}`);
      assert.match(issue.createdAt, ISO);
      assert.equal(issue.createdAt, issue.updatedAt);
      // The tracker's operations are anonymous: their audit entries concern no user, so no activity shows them.
      const [row] = await t.database.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, 'tracker.issue.create'), eq(auditLog.targetId, issue.id)));
      assert.equal(row!.details.identifier, issue.identifier);
    });

    it('answers the issue an Idempotency-Key created (200), and refuses the key with another body (409, decision 1120)', async () => {
      const key = { 'idempotency-key': `create-${randomUUID()}`, ...admin.headers };
      const body = { teamId: TEAM, title: 'Keyed issue', priority: 2, labelIds: [] as string[] };
      const first = await call('POST', '/api/v1/tracker/issues', body, key);
      assert.equal(first.statusCode, 201, first.body);
      // The same create again, its fields in another order: the issue it made, nothing new.
      const again = await call(
        'POST',
        '/api/v1/tracker/issues',
        { priority: 2, labelIds: [], title: 'Keyed issue', teamId: TEAM },
        key,
      );
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().id, first.json().id);
      // The same key with another body makes nothing and says why.
      for (const other of [
        { ...body, title: 'Another issue' },
        { ...body, priority: 3 },
        { teamId: TEAM, title: 'Keyed issue' },
      ]) {
        const refused = await call('POST', '/api/v1/tracker/issues', other, key);
        assert.equal(refused.statusCode, 409, refused.body);
        assert.deepEqual(refused.json(), {
          detail: 'This Idempotency-Key was used with another request body; use a new key for a new issue',
        });
      }
      const made = await t.database.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, 'tracker.issue.create'), eq(auditLog.targetId, first.json().id)));
      assert.equal(made.length, 1);
      // The key is the admin's own: another admin's same key makes an issue of theirs.
      const other = await signIn(t.app, t.database, { role: 'admin' });
      const theirs = await call(
        'POST',
        '/api/v1/tracker/issues',
        { ...body, title: 'Another issue' },
        {
          'idempotency-key': key['idempotency-key'],
          ...other.headers,
        },
      );
      assert.equal(theirs.statusCode, 201, theirs.body);
    });

    it('numbers issues of a team one after the other, even when created at once', async () => {
      const first = await create();
      const issues = await Promise.all(Array.from({ length: 8 }, () => create()));
      const numbers = issues.map((i) => Number(i.identifier.split('-')[1])).sort((a, b) => a - b);
      const start = Number(first.identifier.split('-')[1]);
      assert.deepEqual(
        numbers,
        Array.from({ length: 8 }, (_, i) => start + 1 + i),
      );
    });

    it('resolves the state by name or by type, and sets every optional field', async () => {
      const user = await signIn(t.app, t.database);
      const parent = await create();
      const labelIds = (await fileLabels(['bug', 'exchange'])).sort();
      const byName = await create({
        state: 'in progress',
        priority: 1,
        assigneeId: user.id,
        parentId: parent.identifier,
        projectId: 'proj-7',
        labelIds,
        estimate: 3,
        dueDate: '2030-02-28',
      });
      assert.deepEqual([byName.state.name, byName.state.type], ['In Progress', 'started']);
      assert.equal(byName.priorityLabel, 'Urgent');
      assert.deepEqual(
        byName.assignee,
        { id: user.id, name: `User ${user.id.slice(0, 8)}` },
        'an account without a name shows no e-mail address',
      );
      assert.ok(!JSON.stringify(byName).includes(user.email));
      assert.equal(byName.parentId, parent.id);
      assert.equal(byName.projectId, 'proj-7');
      assert.deepEqual(byName.labels.map((l: { id: string }) => l.id).sort(), labelIds);
      assert.equal(byName.estimate, 3);
      assert.equal(byName.dueDate, '2030-02-28');
      const byType = await create({ state: 'completed' });
      assert.deepEqual([byType.state.name, byType.state.type], ['Done', 'completed']);
    });

    it('answers 422 on the field for an unknown team, state, label, assignee or parent', async () => {
      const cases: [Record<string, unknown>, (string | number)[], RegExp][] = [
        [{ teamId: randomUUID() }, ['body', 'teamId'], /Unknown team/],
        [{ teamId: 'ENG' }, ['body', 'teamId'], /Unknown team/],
        [
          { state: 'Shipped' },
          ['body', 'state'],
          /Unknown state 'Shipped' for team ENG; use one of its states \(Backlog, Todo, In Progress, Done, Canceled\)/,
        ],
        [{ labelIds: [randomUUID()] }, ['body', 'labelIds', 0], /Unknown label/],
        [{ assigneeId: randomUUID() }, ['body', 'assigneeId'], /Unknown user/],
        [{ parentId: 'ENG-999999' }, ['body', 'parentId'], /Unknown issue/],
      ];
      for (const [fields, loc, message] of cases) {
        const response = await call('POST', '/api/v1/tracker/issues', { teamId: TEAM, title: 'x', ...fields });
        assert.equal(response.statusCode, 422, JSON.stringify(fields));
        const [issue] = response.json().detail;
        assert.deepEqual(issue.loc, loc);
        assert.equal(issue.type, 'value_error');
        assert.match(issue.msg, message);
      }
    });

    it('checks the bounds of title, priority, estimate and dueDate and reports every field', async () => {
      const missing = await call('POST', '/api/v1/tracker/issues', {});
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(
        missing.json().detail.map((d: { loc: string[]; type: string }) => [d.loc, d.type]),
        [
          [['body', 'teamId'], 'missing'],
          [['body', 'title'], 'missing'],
        ],
      );
      const bad = await call('POST', '/api/v1/tracker/issues', {
        teamId: TEAM,
        title: '',
        priority: 5,
        estimate: 1.5,
        dueDate: '2030-13-01',
      });
      assert.equal(bad.statusCode, 422);
      const detail = bad.json().detail as { loc: string[]; type: string; ctx?: Record<string, unknown> }[];
      const byField = Object.fromEntries(detail.map((d) => [d.loc[1], d]));
      assert.equal(byField.title!.type, 'string_too_short');
      assert.equal(byField.priority!.type, 'less_than_equal');
      assert.deepEqual(byField.priority!.ctx, { le: 4 });
      assert.equal(byField.estimate!.type, 'int_from_float');
      // Pydantic names the part out of range, not the year (decision 993).
      const outOfRange = (error: string, input: string) => ({
        type: 'date_from_datetime_parsing',
        loc: ['body', 'dueDate'],
        msg: `Input should be a valid date or datetime, ${error}`,
        input,
        ctx: { error },
      });
      assert.deepEqual(byField.dueDate, outOfRange('month value is outside expected range of 1-12', '2030-13-01'));
      for (const [dueDate, error] of [
        ['2031-02-30', 'day value is outside expected range'],
        ['2031-02-29', 'day value is outside expected range'],
        ['2031-04-31', 'day value is outside expected range'],
        ['2031-02-3x', 'invalid character in day'],
        ['2031/02/28', 'invalid date separator, expected `-`'],
        ['20x1-02-28', 'invalid character in year'],
        ['2031-2-1', 'input is too short'],
      ]) {
        const refused = await call('POST', '/api/v1/tracker/issues', { teamId: TEAM, title: 'x', dueDate });
        assert.deepEqual(refused.json().detail, [outOfRange(error!, dueDate!)], dueDate);
      }
      const long = await call('POST', '/api/v1/tracker/issues', { teamId: TEAM, title: 'x'.repeat(256), priority: -1 });
      assert.deepEqual(
        long.json().detail.map((d: { type: string }) => d.type),
        ['string_too_long', 'greater_than_equal'],
      );
      const exact = await call('POST', '/api/v1/tracker/issues', { teamId: TEAM, title: 'x'.repeat(255), priority: 4 });
      assert.equal(exact.statusCode, 201);
      assert.equal(exact.json().priorityLabel, 'Low');
    });
  });

  describe('get and patch', () => {
    it('finds an issue by UUID or identifier, in any case; 404 otherwise', async () => {
      const issue = await create();
      for (const ref of [issue.id, issue.identifier, issue.identifier.toLowerCase()]) {
        const response = await call('GET', `/api/v1/tracker/issues/${ref}`);
        assert.equal(response.statusCode, 200, ref);
        assert.equal(response.json().id, issue.id);
      }
      for (const ref of [randomUUID(), 'ENG-987654', 'not-an-issue', 'agent']) {
        const response = await call('GET', `/api/v1/tracker/issues/${ref}`);
        assert.equal(response.statusCode, 404, ref);
        assert.deepEqual(response.json(), { detail: 'Issue not found' });
      }
    });

    it('changes only the fields sent, clears with null and moves updatedAt', async () => {
      const [bug] = await fileLabels(['bug']);
      const issue = await create({ description: 'old', dueDate: '2030-01-01', estimate: 5, labelIds: [bug] });
      clock.advance(60_000);
      const response = await call('PATCH', `/api/v1/tracker/issues/${issue.identifier}`, {
        title: 'Renamed',
        state: 'Todo',
        priority: 3,
        description: null,
        dueDate: null,
        labelIds: [],
      });
      assert.equal(response.statusCode, 200, response.body);
      const patched = response.json();
      assert.equal(patched.title, 'Renamed');
      assert.deepEqual([patched.state.name, patched.state.type], ['Todo', 'unstarted']);
      assert.equal(patched.priorityLabel, 'Medium');
      assert.equal(patched.description, null);
      assert.equal(patched.dueDate, null);
      assert.equal(patched.estimate, 5);
      assert.deepEqual(patched.labels, []);
      assert.equal(patched.createdAt, issue.createdAt);
      assert.equal(new Date(patched.updatedAt).getTime() - new Date(issue.updatedAt).getTime(), 60_000);

      const unchanged = await call('PATCH', `/api/v1/tracker/issues/${issue.id}`, {});
      assert.equal(unchanged.statusCode, 200);
      assert.equal(unchanged.json().updatedAt, patched.updatedAt);
    });

    it('answers 404 for an unknown issue and 422 for a bad state, parent or bound', async () => {
      assert.equal((await call('PATCH', `/api/v1/tracker/issues/${randomUUID()}`, { title: 'x' })).statusCode, 404);
      const issue = await create();
      const state = await call('PATCH', `/api/v1/tracker/issues/${issue.id}`, { state: 'Nope' });
      assert.equal(state.statusCode, 422);
      assert.deepEqual(state.json().detail[0].loc, ['body', 'state']);
      const self = await call('PATCH', `/api/v1/tracker/issues/${issue.id}`, { parentId: issue.identifier });
      assert.equal(self.statusCode, 422);
      assert.match(self.json().detail[0].msg, /its own parent/);
      const bounds = await call('PATCH', `/api/v1/tracker/issues/${issue.id}`, { title: '', priority: 9 });
      assert.deepEqual(
        bounds.json().detail.map((d: { loc: string[] }) => d.loc),
        [
          ['body', 'title'],
          ['body', 'priority'],
        ],
      );
    });
    it('answers 422 to a parent that is a sub-issue of the issue, at any depth, and keeps the tree (decision 951)', async () => {
      const top = await create();
      const child = await create({ parentId: top.identifier });
      const grandchild = await create({ parentId: child.id });
      for (const below of [child, grandchild]) {
        const cycle = await call('PATCH', `/api/v1/tracker/issues/${top.identifier}`, { parentId: below.identifier });
        assert.equal(cycle.statusCode, 422, cycle.body);
        assert.deepEqual(cycle.json().detail[0].loc, ['body', 'parentId']);
        assert.match(cycle.json().detail[0].msg, /sub-issue of this issue/);
      }
      assert.equal((await call('GET', `/api/v1/tracker/issues/${top.id}`)).json().parentId, null);
      // Concurrent moves that would each be fine alone, and together close a loop: one of them is refused.
      const [a, b] = [await create(), await create()];
      const moves = await Promise.all([
        call('PATCH', `/api/v1/tracker/issues/${a.id}`, { parentId: b.id }),
        call('PATCH', `/api/v1/tracker/issues/${b.id}`, { parentId: a.id }),
      ]);
      assert.deepEqual(moves.map((m) => m.statusCode).sort(), [200, 422]);
      // Moving under an unrelated issue, and clearing, still work.
      const moved = await call('PATCH', `/api/v1/tracker/issues/${grandchild.id}`, { parentId: top.id });
      assert.equal(moved.json().parentId, top.id);
      assert.equal(
        (await call('PATCH', `/api/v1/tracker/issues/${grandchild.id}`, { parentId: null })).json().parentId,
        null,
      );
    });
  });

  describe('list', () => {
    it('filters by state names or types, assignee and label, newest change first', async () => {
      const user = await signIn(t.app, t.database);
      const [label] = await fileLabels(['needs-triage']);
      clock.advance(1000);
      const todo = await create({ state: 'Todo', assigneeId: user.id });
      clock.advance(1000);
      const done = await create({ state: 'Done', labelIds: [label] });
      clock.advance(1000);
      const canceled = await create({ state: 'canceled', assigneeId: user.id, labelIds: [label] });

      const list = async (query: string) => {
        const response = await call('GET', `/api/v1/tracker/issues?${query}`);
        assert.equal(response.statusCode, 200, response.body);
        return response.json().issues as { id: string; state: { name: string } }[];
      };
      const ids = async (query: string) => (await list(query)).map((i) => i.id);
      // Earlier tests' issues are older: the newest three are this test's.
      assert.deepEqual(await ids('states=todo,COMPLETED,canceled&limit=3'), [canceled.id, done.id, todo.id]);
      const closed = await list('states=Done, Canceled&limit=250');
      assert.deepEqual(
        closed.slice(0, 2).map((i) => i.id),
        [canceled.id, done.id],
      );
      assert.ok(closed.every((i) => ['Done', 'Canceled'].includes(i.state.name)));
      assert.deepEqual(await ids(`assignee_id=${user.id}`), [canceled.id, todo.id]);
      // The third is the issue that created the label.
      assert.deepEqual((await ids('label=NEEDS-TRIAGE')).slice(0, 2), [canceled.id, done.id]);
      assert.equal((await ids('label=needs-triage')).length, 3);
      assert.deepEqual(await ids(`label=needs-triage&assignee_id=${user.id}&states=canceled`), [canceled.id]);
      assert.deepEqual(await ids('assignee_id=nobody'), []);
    });

    it('answers 25 by default, says when more exist, and bounds limit to 1..250', async () => {
      await Promise.all(Array.from({ length: 26 }, () => create()));
      const page = (await call('GET', '/api/v1/tracker/issues')).json();
      assert.equal(page.count, 25);
      assert.equal(page.issues.length, 25);
      assert.equal(page.has_more, true);
      const one = (await call('GET', '/api/v1/tracker/issues?limit=1')).json();
      assert.equal(one.count, 1);
      assert.equal((await call('GET', '/api/v1/tracker/issues?limit=250')).statusCode, 200);

      const zero = await call('GET', '/api/v1/tracker/issues?limit=0');
      assert.equal(zero.statusCode, 422);
      assert.deepEqual(zero.json().detail, [
        {
          type: 'greater_than_equal',
          loc: ['query', 'limit'],
          msg: 'Input should be greater than or equal to 1',
          input: '0',
          ctx: { ge: 1 },
        },
      ]);
      assert.equal((await call('GET', '/api/v1/tracker/issues?limit=251')).json().detail[0].type, 'less_than_equal');
      assert.equal((await call('GET', '/api/v1/tracker/issues?limit=many')).json().detail[0].type, 'int_parsing');
    });
  });
});
