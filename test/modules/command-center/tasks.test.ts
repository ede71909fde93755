import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const BASE = '/api/admin/command-center/tasks';
const MISSING = '00000000-0000-4000-8000-000000000000';

describe('command center tasks', () => {
  let t: TestApp;
  let admin: TestUser;
  let member: TestUser;

  before(async () => {
    t = await buildTestApp({ env: { PROJECT_REPO: 'acme/trading-backend' } });
    admin = await signIn(t.app, t.database, { role: 'admin' });
    member = await signIn(t.app, t.database);
  });
  after(async () => {
    await t.close();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, user: TestUser | null = admin) =>
    t.app.inject({ method, url, payload: payload as object, headers: user ? user.headers : {} });
  /** The admin's audit entries about one target, as the admin's activity shows them. */
  const auditsOf = async (targetId: string, action: string) =>
    (
      (await call('GET', `/api/admin/users/${admin.id}/activity?limit=100`)).json() as {
        action: string;
        actor_id: string;
        target_id: string;
      }[]
    ).filter((a) => a.action === action && a.target_id === targetId);
  const create = async (payload: Record<string, unknown>) => {
    const response = await call('POST', BASE, payload);
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };

  describe('authorisation', () => {
    const routes: [string, string, unknown][] = [
      ['POST', BASE, { title: 'Anything' }],
      ['GET', BASE, undefined],
      ['GET', `${BASE}/${MISSING}`, undefined],
      ['PATCH', `${BASE}/${MISSING}`, { status: 'done' }],
      ['POST', `${BASE}/${MISSING}/comments`, { body: 'hi' }],
    ];
    for (const [method, url, payload] of routes) {
      it(`${method} ${url.replace(MISSING, '{id}')} answers 401 without a token and 403 for a non-admin`, async () => {
        const anonymous = await call(method as 'GET', url, payload, null);
        assertDetail(anonymous, 401, 'Not authenticated');
        assert.equal(anonymous.headers['www-authenticate'], 'Bearer');
        assertDetail(await call(method as 'GET', url, payload, member), 403);
      });
    }

    it('checks authentication before validation', async () => {
      assertDetail(await call('POST', BASE, { title: 'x' }, null), 401);
      assertDetail(await call('POST', BASE, { title: 'x' }, member), 403);
    });
  });

  describe('create', () => {
    it('creates a todo task with the defaults, the first comment and an audit entry', async () => {
      const task = await create({ title: 'Wire the scoring job', comment: 'Start with BTC' });
      assert.match(task.id, /^[0-9a-f-]{36}$/);
      assert.equal(task.status, 'todo');
      assert.equal(task.priority, 'medium');
      assert.equal(task.source_type, 'human');
      assert.equal(task.repo, 'acme/trading-backend');
      assert.equal(task.description, null);
      assert.equal(task.assignee, null);
      assert.deepEqual(task.blocked_by, []);
      assert.equal(task.created_by, admin.id);
      assert.equal(task.comment_count, 1);
      assert.equal(task.comments[0].body, 'Start with BTC');
      assert.equal(task.comments[0].author_id, admin.id);
      assert.equal(task.completed_at, null);
      assert.match(task.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(task.updated_at, task.created_at);
      const entries = await auditsOf(task.id, 'command_center.task.create');
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.actor_id, admin.id);
    });

    it('keeps every field sent, blockers deduplicated', async () => {
      const goal = await create({ title: 'Parent goal task' });
      const blocker = await create({ title: 'Blocker task' });
      const task = await create({
        title: 'Child task',
        description: 'Details',
        priority: 'critical',
        assignee: 'agent-7',
        repo: 'acme/other',
        source_type: 'agent',
        source_id: 'agent-7',
        goal_id: 'goal-42',
        parent_task_id: goal.id,
        blocked_by: [blocker.id, blocker.id],
      });
      assert.equal(task.priority, 'critical');
      assert.equal(task.assignee, 'agent-7');
      assert.equal(task.repo, 'acme/other');
      assert.equal(task.source_type, 'agent');
      assert.equal(task.source_id, 'agent-7');
      assert.equal(task.goal_id, 'goal-42');
      assert.equal(task.parent_task_id, goal.id);
      assert.deepEqual(task.blocked_by, [blocker.id]);
      assert.equal(task.comment_count, 0);
    });

    it('bounds the title to 3..200 characters and requires it', async () => {
      const short = assertIssue(await call('POST', BASE, { title: 'ab' }), ['body', 'title'], 'string_too_short');
      assert.deepEqual(short.ctx, { min_length: 3 });
      assert.equal(short.msg, 'String should have at least 3 characters');
      const long = assertIssue(
        await call('POST', BASE, { title: 'x'.repeat(201) }),
        ['body', 'title'],
        'string_too_long',
      );
      assert.deepEqual(long.ctx, { max_length: 200 });
      assert.equal((await call('POST', BASE, { title: 'x'.repeat(200) })).statusCode, 201);
      assertIssue(await call('POST', BASE, { priority: 'low' }), ['body', 'title'], 'missing');
      assertIssue(await call('POST', BASE, undefined), ['body'], 'missing');
    });

    it('rejects unknown priorities, source types and malformed references, all at once', async () => {
      const response = await call('POST', BASE, {
        title: 'Valid title',
        priority: 'urgent',
        source_type: 'robot',
        parent_task_id: 'nope',
        blocked_by: [MISSING, 'not-a-uuid'],
        comment: '',
      });
      const priority = assertIssue(response, ['body', 'priority'], 'enum');
      assert.equal(priority.msg, "Input should be 'critical', 'high', 'medium' or 'low'");
      assertIssue(response, ['body', 'source_type'], 'enum');
      assertIssue(response, ['body', 'parent_task_id'], 'uuid_parsing');
      assertIssue(response, ['body', 'blocked_by', 1], 'uuid_parsing');
      assertIssue(response, ['body', 'comment'], 'string_too_short');
    });

    it('rejects a comment over 5000 characters', async () => {
      assertIssue(
        await call('POST', BASE, { title: 'Valid', comment: 'c'.repeat(5001) }),
        ['body', 'comment'],
        'string_too_long',
      );
    });

    it('answers 422 on the field when a parent or blocker does not exist, and creates nothing', async () => {
      const real = await create({ title: 'Real blocker' });
      const response = await call('POST', BASE, {
        title: 'Orphan',
        parent_task_id: MISSING,
        blocked_by: [real.id, MISSING],
      });
      const parent = assertIssue(response, ['body', 'parent_task_id'], 'value_error');
      assert.equal(parent.msg, `Value error, no task with id ${MISSING} exists`);
      assertIssue(response, ['body', 'blocked_by', 1], 'value_error');
      const list = await call('GET', `${BASE}?limit=200`);
      assert.ok(!list.json().tasks.some((task: { title: string }) => task.title === 'Orphan'));
    });
  });

  describe('update', () => {
    it('changes status, assignee and result, adds the comment, and records completion', async () => {
      const task = await create({ title: 'Ship it', assignee: 'agent-1' });
      const started = await call('PATCH', `${BASE}/${task.id}`, { status: 'in_progress', comment: 'On it' });
      assert.equal(started.statusCode, 200, started.body);
      assert.equal(started.json().status, 'in_progress');
      assert.equal(started.json().comments.length, 1);
      assert.equal(started.json().completed_at, null);

      const done = (
        await call('PATCH', `${BASE}/${task.id}`, {
          status: 'done',
          result: 'Merged',
          assignee: null,
          priority: 'high',
        })
      ).json();
      assert.equal(done.status, 'done');
      assert.equal(done.result, 'Merged');
      assert.equal(done.assignee, null);
      assert.equal(done.priority, 'high');
      assert.ok(done.completed_at);

      const reopened = (await call('PATCH', `${BASE}/${task.id}`, { status: 'todo' })).json();
      assert.equal(reopened.completed_at, null);
      const audits = await auditsOf(task.id, 'command_center.task.update');
      assert.equal(audits.length, 3);
    });

    it('accepts every status of the board and rejects others', async () => {
      const task = await create({ title: 'Cycle through statuses' });
      for (const status of ['in_progress', 'blocked', 'in_review', 'done', 'cancelled', 'todo']) {
        const response = await call('PATCH', `${BASE}/${task.id}`, { status });
        assert.equal(response.json().status, status);
      }
      const bad = assertIssue(
        await call('PATCH', `${BASE}/${task.id}`, { status: 'archived' }),
        ['body', 'status'],
        'enum',
      );
      assert.deepEqual(bad.ctx, { expected: "'todo', 'in_progress', 'blocked', 'in_review', 'done' or 'cancelled'" });
    });

    it('answers 404 for an unknown or a malformed id', async () => {
      assertDetail(await call('PATCH', `${BASE}/${MISSING}`, { status: 'done' }), 404, 'Task not found');
      assertDetail(await call('PATCH', `${BASE}/not-a-uuid`, { status: 'done' }), 404, 'Task not found');
      assertDetail(await call('GET', `${BASE}/not-a-uuid`), 404, 'Task not found');
    });

    it('refuses a parent that is the task itself or one of its descendants', async () => {
      const root = await create({ title: 'Root' });
      const child = await create({ title: 'Child', parent_task_id: root.id });
      const grandchild = await create({ title: 'Grandchild', parent_task_id: child.id });
      const self = assertIssue(
        await call('PATCH', `${BASE}/${root.id}`, { parent_task_id: root.id }),
        ['body', 'parent_task_id'],
        'value_error',
      );
      assert.match(self.msg, /own parent/);
      const cycle = assertIssue(
        await call('PATCH', `${BASE}/${root.id}`, { parent_task_id: grandchild.id }),
        ['body', 'parent_task_id'],
        'value_error',
      );
      assert.match(cycle.msg, /cycle/);
      assertIssue(
        await call('PATCH', `${BASE}/${root.id}`, { parent_task_id: MISSING }),
        ['body', 'parent_task_id'],
        'value_error',
      );
      // Moving a subtree elsewhere is fine, and null detaches it.
      const other = await create({ title: 'Other root' });
      assert.equal(
        (await call('PATCH', `${BASE}/${child.id}`, { parent_task_id: other.id })).json().parent_task_id,
        other.id,
      );
      assert.equal((await call('PATCH', `${BASE}/${child.id}`, { parent_task_id: null })).json().parent_task_id, null);
    });

    it('refuses blockers that would make the task wait on itself', async () => {
      const a = await create({ title: 'Task A' });
      const b = await create({ title: 'Task B', blocked_by: [a.id] });
      const c = await create({ title: 'Task C', blocked_by: [b.id] });
      assertIssue(
        await call('PATCH', `${BASE}/${a.id}`, { blocked_by: [a.id] }),
        ['body', 'blocked_by', 0],
        'value_error',
      );
      const cycle = assertIssue(
        await call('PATCH', `${BASE}/${a.id}`, { blocked_by: [c.id] }),
        ['body', 'blocked_by'],
        'value_error',
      );
      assert.match(cycle.msg, /cycle/);
      // Replacing and clearing blockers is allowed when acyclic.
      assert.deepEqual((await call('PATCH', `${BASE}/${c.id}`, { blocked_by: [a.id] })).json().blocked_by, [a.id]);
      assert.deepEqual((await call('PATCH', `${BASE}/${c.id}`, { blocked_by: [] })).json().blocked_by, []);
    });

    it('validates the comment of an update', async () => {
      const task = await create({ title: 'Commented' });
      assertIssue(await call('PATCH', `${BASE}/${task.id}`, { comment: '' }), ['body', 'comment'], 'string_too_short');
      assertIssue(
        await call('PATCH', `${BASE}/${task.id}`, { comment: 'c'.repeat(5001) }),
        ['body', 'comment'],
        'string_too_long',
      );
    });

    it('answers the task unchanged for an empty body', async () => {
      const task = await create({ title: 'Untouched' });
      const response = await call('PATCH', `${BASE}/${task.id}`, {});
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().updated_at, task.updated_at);
    });
  });

  describe('comments', () => {
    it('adds a comment and counts it on the task', async () => {
      const task = await create({ title: 'Discuss' });
      const response = await call('POST', `${BASE}/${task.id}/comments`, { body: 'First thought' });
      assert.equal(response.statusCode, 201, response.body);
      const comment = response.json();
      assert.equal(comment.task_id, task.id);
      assert.equal(comment.body, 'First thought');
      assert.equal(comment.author_id, admin.id);
      const read = (await call('GET', `${BASE}/${task.id}`)).json();
      assert.equal(read.comment_count, 1);
      assert.equal(read.comments[0].id, comment.id);
    });

    it('bounds the body to 1..5000 characters and requires it', async () => {
      const task = await create({ title: 'Bounded' });
      const url = `${BASE}/${task.id}/comments`;
      assertIssue(await call('POST', url, { body: '' }), ['body', 'body'], 'string_too_short');
      assertIssue(await call('POST', url, { body: 'b'.repeat(5001) }), ['body', 'body'], 'string_too_long');
      assert.equal((await call('POST', url, { body: 'b'.repeat(5000) })).statusCode, 201);
      assertIssue(await call('POST', url, {}), ['body', 'body'], 'missing');
    });

    it('answers 404 for an unknown or malformed task id', async () => {
      assertDetail(await call('POST', `${BASE}/${MISSING}/comments`, { body: 'hello' }), 404, 'Task not found');
      assertDetail(await call('POST', `${BASE}/zzz/comments`, { body: 'hello' }), 404, 'Task not found');
    });
  });

  describe('list and counts', () => {
    it('lists each task as its own answer shows it: every field, its blockers in order, its comment count', async () => {
      const first = await create({ title: 'Blocker one', description: 'with a "quoted" word' });
      const second = await create({ title: 'Blocker two', parent_task_id: first.id });
      const task = await create({ title: 'Blocked task', blocked_by: [second.id, first.id], comment: 'one' });
      await call('POST', `${BASE}/${task.id}/comments`, { body: 'two' });
      await call('PATCH', `${BASE}/${first.id}`, { status: 'done', result: 'shipped' });
      const listed: { id: string; blocked_by: string[]; comment_count: number }[] = (
        await call('GET', `${BASE}?limit=200`)
      ).json().tasks;
      for (const id of [task.id, first.id, second.id]) {
        const { comments: _, ...alone } = (await call('GET', `${BASE}/${id}`)).json();
        assert.deepEqual(
          listed.find((x) => x.id === id),
          alone,
        );
      }
      const blocked = listed.find((x) => x.id === task.id);
      assert.deepEqual(blocked?.blocked_by, [first.id, second.id].sort());
      assert.equal(blocked?.comment_count, 2);
      const done = (await call('GET', `${BASE}?status=done&limit=200`)).json();
      assert.ok(
        done.tasks.some((x: { id: string; completed_at: string | null }) => x.id === first.id && x.completed_at),
        'a filtered page (not prepared) lists the same way',
      );
    });

    it('filters, pages newest first, and counts by status', async () => {
      const module = t.modules.commandCenter;
      const before = await module.tasks.countsByStatus();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const task = await create({
          title: `Listed task ${i}`,
          assignee: i % 2 === 0 ? 'lister-even' : 'lister-odd',
          priority: i === 4 ? 'high' : 'low',
        });
        ids.push(task.id);
      }
      await call('PATCH', `${BASE}/${ids[0]}`, { status: 'done' });
      await call('PATCH', `${BASE}/${ids[1]}`, { status: 'in_review' });
      const get = (query: string) => call('GET', `${BASE}${query}`);

      const even = (await get('?assignee=lister-even')).json();
      assert.equal(even.total, 3);
      assert.equal(even.limit, 50);
      assert.equal(even.offset, 0);
      assert.deepEqual(
        even.tasks.map((x: { id: string }) => x.id),
        [ids[4], ids[2], ids[0]],
      );
      assert.ok(!('comments' in even.tasks[0]));

      const all = (await get('?limit=200')).json();
      const pages: string[] = [];
      for (let offset = 0; offset < all.total; offset += 4) {
        pages.push(...(await get(`?limit=4&offset=${offset}`)).json().tasks.map((x: { id: string }) => x.id));
      }
      assert.deepEqual(
        pages,
        all.tasks.map((x: { id: string }) => x.id),
      );
      assert.equal(new Set(pages).size, all.total);
      const farPast = await get('?offset=1000000000000');
      assert.equal(farPast.statusCode, 200, 'the largest offset is past the end, not a database error');
      assert.deepEqual(
        [farPast.json().tasks, farPast.json().total, farPast.json().offset],
        [[], all.total, 1_000_000_000_000],
      );
      // Beyond it the offset could not be echoed exactly (decision 098).
      assertIssue(await get('?offset=92233720368547758'), ['query', 'offset'], 'less_than_equal');

      assert.deepEqual(
        (await get('?assignee=lister-even&status=done')).json().tasks.map((x: { id: string }) => x.id),
        [ids[0]],
      );
      assert.deepEqual(
        (await get('?assignee=lister-even&priority=high')).json().tasks.map((x: { id: string }) => x.id),
        [ids[4]],
      );
      assert.equal((await get('?assignee=lister-odd&source_type=agent')).json().total, 0);

      assertIssue(await get('?limit=0'), ['query', 'limit'], 'greater_than_equal');
      assertIssue(await get('?limit=201'), ['query', 'limit'], 'less_than_equal');
      assertIssue(await get('?offset=-1'), ['query', 'offset'], 'greater_than_equal');
      assertIssue(await get('?status=nope'), ['query', 'status'], 'enum');

      const afterCounts = await module.tasks.countsByStatus();
      assert.deepEqual(Object.keys(afterCounts).sort(), [
        'blocked',
        'cancelled',
        'done',
        'in_progress',
        'in_review',
        'todo',
      ]);
      assert.equal(afterCounts.todo! - before.todo!, 3);
      assert.equal(afterCounts.done! - before.done!, 1);
      assert.equal(afterCounts.in_review! - before.in_review!, 1);
    });
  });
});
