import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import { auditLog, outbox } from '../../../src/platform/db/schema.ts';
import { LOCAL_DEFAULT_TEAM } from '../../../src/modules/tracker/adapters/local-tracker-backend.ts';
import { MAX_LOCAL_LABELS } from '../../../src/modules/tracker/tracker.domain.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const TEAM = LOCAL_DEFAULT_TEAM.id;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('tracker on the local backend', () => {
  let t: TestApp;
  let admin: TestUser;
  const clock = fixedClock(new Date());
  before(async () => {
    t = await buildTestApp({ clock });
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
  });

  const call = (
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = admin.headers,
  ) => t.app.inject({ method, url, payload: payload as object, headers });
  const create = async (fields: Record<string, unknown> = {}) => {
    const response = await call('POST', '/api/v1/tracker/issues', {
      teamId: TEAM,
      title: `Issue ${randomUUID().slice(0, 8)}`,
      ...fields,
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };
  const fileForAgent = (fields: Record<string, unknown>) =>
    call('POST', '/api/v1/tracker/issues/agent', { agent_id: 'ci-bot', ...fields });

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
      assert.ok(byField.dueDate);
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

  describe('agent-filed issues', () => {
    it('files with priority 2 in the default team, creates labels, records the agent and announces it once', async () => {
      const response = await fileForAgent({
        title: 'Nightly backtest failed',
        description: 'exit 1',
        agent_type: 'ci',
        label_names: ['flaky', 'Flaky', 'backtest'],
      });
      assert.equal(response.statusCode, 201, response.body);
      const issue = response.json();
      assert.equal(issue.deduplicated, false);
      assert.equal(issue.priority, 2);
      assert.equal(issue.priorityLabel, 'High');
      assert.equal(issue.team.id, TEAM);
      assert.equal(issue.agentId, 'ci-bot');
      assert.equal(issue.state.type, 'backlog');
      assert.deepEqual(issue.labels.map((l: { name: string }) => l.name).sort(), ['agent:ci', 'backtest', 'flaky']);

      // What is checked is the queueing (once per issue, by its dedupe key): the outbox is read, not the chat.
      const messages = await t.database.db
        .select()
        .from(outbox)
        .where(eq(outbox.dedupeKey, `tracker.agent-issue:${issue.id}`));
      assert.equal(messages.length, 1);
      assert.equal(messages[0]!.kind, 'chat.post');
      assert.match(String(messages[0]!.payload.title), new RegExp(`${issue.identifier} filed by agent ci-bot`));
      // An agent's filing concerns no user: no activity shows its audit entry.
      const [row] = await t.database.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, 'tracker.issue.agent_file'), eq(auditLog.targetId, issue.id)));
      assert.equal(row!.details.agentId, 'ci-bot');
    });

    it('answers the open issue of the same agent and title instead of a duplicate, even for concurrent retries', async () => {
      const title = `Exchange timeout ${randomUUID().slice(0, 6)}`;
      const answers = await Promise.all(Array.from({ length: 5 }, () => fileForAgent({ title })));
      const created = answers.filter((a) => a.statusCode === 201);
      assert.equal(created.length, 1);
      const id = created[0]!.json().id;
      for (const answer of answers.filter((a) => a.statusCode !== 201)) {
        assert.equal(answer.statusCode, 200);
        assert.equal(answer.json().deduplicated, true);
        assert.equal(answer.json().id, id);
      }
      // Another agent, or the same agent once the issue is done, gets a new issue.
      const other = await fileForAgent({ title, agent_id: 'other-bot' });
      assert.equal(other.statusCode, 201);
      assert.notEqual(other.json().id, id);
      await call('PATCH', `/api/v1/tracker/issues/${id}`, { state: 'Done' });
      const again = await fileForAgent({ title });
      assert.equal(again.statusCode, 201);
      assert.notEqual(again.json().id, id);
      // One message queued per issue created, none per answered retry: counted in the outbox, where no delivery timing blurs it.
      const messages = await t.database.db.select().from(outbox).where(eq(outbox.kind, 'chat.post'));
      assert.equal(messages.filter((m) => String(m.payload.text) === title).length, 3);
    });

    it('defaults agent_type to custom and validates its fields', async () => {
      const response = await fileForAgent({ title: 'Custom agent issue' });
      assert.equal(response.statusCode, 201);
      assert.deepEqual(
        response.json().labels.map((l: { name: string }) => l.name),
        ['agent:custom'],
      );
      const bad = await call('POST', '/api/v1/tracker/issues/agent', { title: '', priority: 7, label_names: [''] });
      assert.equal(bad.statusCode, 422);
      assert.deepEqual(
        bad.json().detail.map((d: { loc: (string | number)[]; type: string }) => [d.loc, d.type]),
        [
          [['body', 'agent_id'], 'missing'],
          [['body', 'title'], 'string_too_short'],
          [['body', 'priority'], 'less_than_equal'],
          [['body', 'label_names', 0], 'string_too_short'],
        ],
      );
    });

    it('refuses a lone surrogate in any text, on both filing routes, as Pydantic does, and stores nothing', async () => {
      const lone = 'x\ud800y';
      const unicode = (loc: (string | number)[]) => ({
        type: 'string_unicode',
        loc,
        msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
        input: lone,
      });
      const countRows = async () => ({
        audit: (await t.database.db.select().from(auditLog)).length,
        outbox: (await t.database.db.select().from(outbox)).length,
      });
      const before = await countRows();
      const attempts: [string, Record<string, unknown>, (string | number)[]][] = [
        [
          '/api/v1/tracker/issues/agent',
          { agent_id: 'ci-bot', title: 'Surrogate in the type', agent_type: lone },
          ['body', 'agent_type'],
        ],
        [
          '/api/v1/tracker/issues/agent',
          { agent_id: 'ci-bot', title: 'Surrogate in a label', label_names: ['ok', lone] },
          ['body', 'label_names', 1],
        ],
        ['/api/v1/tracker/issues/agent', { agent_id: lone, title: 'Surrogate in the agent' }, ['body', 'agent_id']],
        ['/api/v1/tracker/issues', { teamId: TEAM, title: lone }, ['body', 'title']],
      ];
      for (const [url, body, loc] of attempts) {
        // Written by hand: the escape is what a client sends (JSON.stringify would escape it too).
        const response = await t.app.inject({
          method: 'POST',
          url,
          payload: JSON.stringify(body),
          headers: { ...admin.headers, 'content-type': 'application/json' },
        });
        assert.equal(response.statusCode, 422, `${url} ${JSON.stringify(loc)}: ${response.body}`);
        assert.match(response.body, /\\ud800/);
        assert.deepEqual(response.json().detail, [unicode(loc)]);
      }
      assert.deepEqual(await countRows(), before);
      // A surrogate pair (an emoji) is ordinary text.
      const emoji = await fileForAgent({ title: 'Pair \ud83d\ude00', label_names: ['\ud83d\ude80'] });
      assert.equal(emoji.statusCode, 201, emoji.body);
      assert.ok(emoji.json().labels.some((l: { name: string }) => l.name === '\u{1f680}'));
    });
  });

  describe('who may call it', () => {
    const operations = [
      ['GET', '/api/v1/tracker/issues', undefined],
      ['POST', '/api/v1/tracker/issues', { teamId: TEAM, title: 'Anonymous issue' }],
      ['POST', '/api/v1/tracker/issues/agent', { agent_id: 'anon-bot', title: 'Anonymous filing' }],
      ['GET', '/api/v1/tracker/issues/ENG-1', undefined],
      ['PATCH', '/api/v1/tracker/issues/ENG-1', { title: 'Renamed anonymously' }],
    ] as const;

    it('refuses every operation but health to anonymous callers (401) and to users who are not admins (403)', async () => {
      const user = await signIn(t.app, t.database);
      for (const [method, url, payload] of operations) {
        const anonymous = await call(method, url, payload, {});
        assert.equal(anonymous.statusCode, 401, `${method} ${url}`);
        assert.deepEqual(anonymous.json(), { detail: 'Not authenticated' });
        const plain = await call(method, url, payload, user.headers);
        assert.equal(plain.statusCode, 403, `${method} ${url}`);
      }
      assert.equal((await call('GET', '/api/v1/tracker/health', undefined, {})).statusCode, 200, 'health stays public');
      const listed = await call('GET', '/api/v1/tracker/issues?limit=250');
      assert.ok(
        !listed.json().issues.some((i: { title: string }) => /anonymous/i.test(i.title)),
        'nothing was filed or changed by them',
      );
    });

    it('records the admin who acted in the audit trail', async () => {
      const issue = await create({ title: 'Audited issue' });
      const [row] = await t.database.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, 'tracker.issue.create'), eq(auditLog.targetId, issue.id)));
      assert.equal(row!.actorId, admin.id);
    });

    it('stores what the body declares and nothing else', async () => {
      const issue = await create({
        title: 'Declared only',
        agentId: 'spoofed-agent',
        identifier: 'ENG-99999',
        createdAt: '2001-01-01T00:00:00.000Z',
      });
      assert.equal(issue.agentId, null);
      assert.notEqual(issue.identifier, 'ENG-99999');
      assert.notEqual(issue.createdAt, '2001-01-01T00:00:00.000Z');
    });

    it('documents health as public and the other five for a bearer token', async () => {
      const document = (await call('GET', '/openapi.json')).json();
      const paths = document.paths as Record<
        string,
        Record<string, { security?: unknown; tags: string[]; responses: Record<string, unknown> }>
      >;
      assert.deepEqual(paths['/api/v1/tracker/health']!.get!.security, []);
      const secured = [
        ['/api/v1/tracker/issues', 'get'],
        ['/api/v1/tracker/issues', 'post'],
        ['/api/v1/tracker/issues/{issue_id}', 'get'],
        ['/api/v1/tracker/issues/{issue_id}', 'patch'],
        ['/api/v1/tracker/issues/agent', 'post'],
      ] as const;
      for (const [path, method] of secured) {
        const operation = paths[path]?.[method];
        assert.ok(operation, `${method} ${path}`);
        assert.deepEqual(operation.tags, ['tracker']);
        assert.deepEqual(operation.security, [{ bearerAuth: ['admin'] }], `${method} ${path}`);
        assert.ok(
          '401' in operation.responses && '403' in operation.responses,
          `${method} ${path} documents 401 and 403`,
        );
      }
    });
  });

  describe('label creation is bounded', () => {
    it(`creates no label past ${MAX_LOCAL_LABELS}: a filing that needs one more answers 422`, async () => {
      let refused: { statusCode: number; json(): { detail: { loc: (string | number)[]; msg: string }[] } } | undefined;
      for (let round = 0; round <= MAX_LOCAL_LABELS / 20 && !refused; round++) {
        const names = Array.from({ length: 20 }, (_, i) => `bulk-${round}-${i}`);
        const response = await fileForAgent({
          title: `Bulk labels ${round}`,
          agent_id: 'label-flood',
          label_names: names,
        });
        if (response.statusCode === 422) refused = response;
        else assert.equal(response.statusCode, 201, response.body);
      }
      assert.ok(refused, 'a filing was refused before the labels outgrew the bound');
      assert.deepEqual(refused.json().detail[0]!.loc, ['body', 'label_names']);
      assert.match(refused.json().detail[0]!.msg, /holds 1000 labels/);
      const reused = await fileForAgent({
        title: 'Existing labels still work',
        agent_id: 'label-flood',
        label_names: ['bulk-0-0'],
      });
      assert.equal(reused.statusCode, 201, 'filing with labels that exist goes on');
    });
  });

  /** Labels exist only through agent filings on the local tracker; file one to get their ids. */
  async function fileLabels(names: string[]): Promise<string[]> {
    const response = await fileForAgent({
      title: `labels ${randomUUID()}`,
      agent_id: 'label-seeder',
      label_names: names,
    });
    assert.equal(response.statusCode, 201, response.body);
    const labels = response.json().labels as { id: string; name: string }[];
    return names.map((n) => labels.find((l) => l.name === n)!.id);
  }
});
