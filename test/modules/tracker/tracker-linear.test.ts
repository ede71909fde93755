import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { closedPort } from '../../helpers/ports.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { startLinearFake, type LinearFake } from '../../fakes/linear.ts';
import { linearEnv } from './tracker-linear-fixtures.ts';

describe('tracker on the Linear backend', () => {
  let fake: LinearFake;
  let t: TestApp;
  let admin: TestUser;
  before(async () => {
    fake = await startLinearFake();
    t = await buildTestApp({ env: linearEnv(fake) });
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  const call = (
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = admin.headers,
  ) => t.app.inject({ method, url, payload: payload as object, headers });
  const create = async (fields: Record<string, unknown> = {}) => {
    const response = await call('POST', '/api/v1/tracker/issues', {
      teamId: fake.teams.eng.id,
      title: 'An issue',
      ...fields,
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };
  const lastRequest = (field: string) => [...fake.requests].reverse().find((r) => r.fields.includes(field))!;
  const stateId = (name: string) => fake.states.find((s) => s.team.id === fake.teams.eng.id && s.name === name)!.id;

  it('health checks the personal key with Linear, as-is in Authorization', async () => {
    const response = await call('GET', '/api/v1/tracker/health');
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.deepEqual(
      { ...body, latency_ms: typeof body.latency_ms },
      {
        backend: 'linear',
        reachable: true,
        latency_ms: 'number',
        detail: 'Linear accepted the key',
        default_team_id: fake.teams.eng.id,
      },
    );
    assert.equal(lastRequest('viewer').authorization, fake.apiKey);
  });

  it('health is public and names no one: an anonymous caller learns up or down, not whose key it is (decision 746)', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/tracker/health' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().reachable, true);
    for (const secret of ['Ada', 'Lovelace', 'ada@example.com'])
      assert.ok(!response.body.includes(secret), `the public health answer names the key's owner: ${response.body}`);
  });

  it("health is public but reused for half a minute: an anonymous loop does not spend the key's allowance (decision 742)", async () => {
    const viewerCalls = () => fake.requests.filter((r) => r.fields.includes('viewer')).length;
    const before = viewerCalls();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.app.inject({ method: 'GET', url: '/api/v1/tracker/health' })),
    );
    for (const answer of answers) assert.equal(answer.statusCode, 200);
    assert.ok(viewerCalls() - before <= 1, `20 anonymous health checks asked Linear ${viewerCalls() - before} times`);
  });

  describe('what reaches Linear', () => {
    it('an anonymous PATCH reaches nothing: 401 before any call to Linear', async () => {
      const issue = await create({ title: 'Not to be trashed' });
      const before = fake.requests.length;
      const response = await call('PATCH', `/api/v1/tracker/issues/${issue.id}`, { trashed: true }, {});
      assert.equal(response.statusCode, 401);
      assert.equal(fake.requests.length, before, 'Linear was not asked anything');
    });

    it("sends only the schema's fields, whatever else the body carries", async () => {
      const issue = await create({ title: 'Extra fields', trashed: true, creatorId: fake.users[0]!.id, sortOrder: -1 });
      const createInput = lastRequest('issueCreate').variables.input as Record<string, unknown>;
      assert.deepEqual(Object.keys(createInput).sort(), ['id', 'priority', 'stateId', 'teamId', 'title']);
      const patched = await call('PATCH', `/api/v1/tracker/issues/${issue.id}`, {
        title: 'Renamed',
        trashed: true,
        archivedAt: '2020-01-01',
      });
      assert.equal(patched.statusCode, 200, patched.body);
      const updateInput = lastRequest('issueUpdate').variables.input as Record<string, unknown>;
      assert.deepEqual(Object.keys(updateInput), ['title']);
    });
  });

  describe('create, get, patch', () => {
    it('resolves the state to a stateId of the team and answers the issue in our shape', async () => {
      const issue = await create({
        title: 'Fills arrive late',
        description: 'See logs',
        priority: 3,
        assigneeId: fake.users[0]!.id,
        estimate: 2,
        dueDate: '2031-05-01',
        projectId: 'p-1',
      });
      assert.equal(
        lastRequest('issueCreate').variables.input &&
          (lastRequest('issueCreate').variables.input as { stateId: string }).stateId,
        stateId('Backlog'),
      );
      assert.match(issue.identifier, /^ENG-\d+$/);
      assert.equal(issue.url, `https://linear.app/fake/issue/${issue.identifier}`);
      assert.deepEqual([issue.state.name, issue.state.type], ['Backlog', 'backlog']);
      assert.deepEqual(issue.team, fake.teams.eng);
      assert.equal(issue.priorityLabel, 'Medium');
      assert.deepEqual(issue.assignee, { id: fake.users[0]!.id, name: 'Ada Lovelace' });
      assert.equal(issue.estimate, 2);
      assert.equal(issue.dueDate, '2031-05-01');
      assert.equal(issue.projectId, 'p-1');
      assert.equal(issue.agentId, null);
      assert.match(issue.createdAt, /Z$/);

      const started = await create({ state: 'started' });
      assert.equal(started.state.name, 'In Progress', 'a type resolves to its first state');
      const review = await create({ state: 'in review' });
      assert.equal(review.state.name, 'In Review', 'a name wins, case-insensitively');
    });

    it('answers the issue an Idempotency-Key created (200), and refuses the key with another body (409, decision 1120)', async () => {
      const headers = { 'idempotency-key': 'linear-create-1', ...admin.headers };
      const body = { teamId: fake.teams.eng.id, title: 'Keyed at Linear', priority: 1 };
      const first = await call('POST', '/api/v1/tracker/issues', body, headers);
      assert.equal(first.statusCode, 201, first.body);
      const creates = () => fake.requests.filter((r) => r.fields.includes('issueCreate')).length;
      const sent = creates();
      const again = await call('POST', '/api/v1/tracker/issues', body, headers);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().id, first.json().id);
      const refused = await call('POST', '/api/v1/tracker/issues', { ...body, title: 'Something else' }, headers);
      assert.equal(refused.statusCode, 409, refused.body);
      assert.deepEqual(refused.json(), {
        detail: 'This Idempotency-Key was used with another request body; use a new key for a new issue',
      });
      assert.equal(creates(), sent, 'neither reached issueCreate');
      assert.equal(fake.issues.filter((issue) => issue.id === first.json().id).length, 1);
    });

    it('answers 422 for an unknown team or state, and for what Linear refuses', async () => {
      const team = await call('POST', '/api/v1/tracker/issues', {
        teamId: 'f6a1c1ad-0000-4000-8000-000000000000',
        title: 'x',
      });
      assert.equal(team.statusCode, 422);
      assert.deepEqual(team.json().detail[0].loc, ['body', 'teamId']);
      const state = await call('POST', '/api/v1/tracker/issues', {
        teamId: fake.teams.eng.id,
        title: 'x',
        state: 'Shipped',
      });
      assert.equal(state.statusCode, 422);
      assert.match(
        state.json().detail[0].msg,
        /Unknown state 'Shipped' for team ENG; use one of its states \(Triage, Backlog, Todo, In Progress, In Review, Done, Canceled\)/,
      );
      const assignee = await call('POST', '/api/v1/tracker/issues', {
        teamId: fake.teams.eng.id,
        title: 'x',
        assigneeId: 'nobody',
      });
      assert.equal(assignee.statusCode, 422);
      assert.match(assignee.json().detail[0].msg, /refused the issue: Entity not found: User/);
    });

    it('gets by id or identifier and answers 404 for what Linear does not know', async () => {
      const issue = await create();
      assert.equal((await call('GET', `/api/v1/tracker/issues/${issue.identifier}`)).json().id, issue.id);
      assert.equal((await call('GET', `/api/v1/tracker/issues/${issue.id}`)).json().identifier, issue.identifier);
      const missing = await call('GET', '/api/v1/tracker/issues/ENG-9999');
      assert.equal(missing.statusCode, 404);
      assert.deepEqual(missing.json(), { detail: 'Issue not found' });
    });

    it('patches through issueUpdate with the resolved stateId; null clears; 404 when unknown', async () => {
      const issue = await create({ dueDate: '2031-01-01' });
      const response = await call('PATCH', `/api/v1/tracker/issues/${issue.identifier}`, {
        title: 'Renamed',
        state: 'Done',
        dueDate: null,
        priority: 4,
      });
      assert.equal(response.statusCode, 200, response.body);
      const input = lastRequest('issueUpdate').variables.input as Record<string, unknown>;
      assert.deepEqual(input, { title: 'Renamed', dueDate: null, priority: 4, stateId: stateId('Done') });
      const patched = response.json();
      assert.deepEqual(
        [patched.title, patched.state.type, patched.dueDate, patched.priorityLabel],
        ['Renamed', 'completed', null, 'Low'],
      );
      assert.equal((await call('PATCH', '/api/v1/tracker/issues/ENG-9999', { title: 'x' })).statusCode, 404);
      assert.equal((await call('PATCH', '/api/v1/tracker/issues/ENG-9999', { state: 'Done' })).statusCode, 404);
    });
  });

  describe('list', () => {
    it('sends Linear filters for states, assignee and label, and passes limit as first', async () => {
      const todo = await create({ title: 'list todo', state: 'Todo', assigneeId: fake.users[0]!.id });
      const started = await create({ title: 'list started', state: 'In Review' });
      const response = await call('GET', '/api/v1/tracker/issues?states=todo,started&limit=2');
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.deepEqual(
        body.issues.map((i: { id: string }) => i.id),
        [started.id, todo.id],
      );
      assert.equal(body.count, 2);
      const request = lastRequest('issues');
      assert.equal(request.variables.first, 2);
      assert.deepEqual(request.variables.filter, {
        state: { or: [{ type: { in: ['started'] } }, { name: { eqIgnoreCase: 'todo' } }] },
      });

      const mine = (await call('GET', `/api/v1/tracker/issues?assignee_id=${fake.users[0]!.id}&states=Todo`)).json();
      assert.ok(mine.issues.some((i: { id: string }) => i.id === todo.id));
      assert.ok(mine.issues.every((i: { assignee: { id: string } | null }) => i.assignee?.id === fake.users[0]!.id));

      await call('POST', '/api/v1/tracker/issues/agent', {
        title: 'labelled',
        agent_id: 'lister',
        label_names: ['listing'],
      });
      const labelled = (await call('GET', '/api/v1/tracker/issues?label=LISTING')).json();
      assert.deepEqual(
        labelled.issues.map((i: { title: string }) => i.title),
        ['labelled'],
      );
      assert.deepEqual(lastRequest('issues').variables.filter, {
        labels: { some: { name: { eqIgnoreCase: 'LISTING' } } },
      });
    });

    it('says has_more from pageInfo', async () => {
      await create();
      await create();
      const page = (await call('GET', '/api/v1/tracker/issues?limit=1')).json();
      assert.equal(page.count, 1);
      assert.equal(page.has_more, true);
    });
  });

  describe('agent-filed issues', () => {
    it('resolves and creates labels, marks the agent with a label, and deduplicates open issues', async () => {
      const body = {
        title: 'Deploy failed on main',
        agent_id: 'deploy-bot',
        agent_type: 'ci',
        label_names: ['bug', 'ops-only', 'deploys'],
      };
      const first = await call('POST', '/api/v1/tracker/issues/agent', body);
      assert.equal(first.statusCode, 201, first.body);
      const issue = first.json();
      assert.equal(issue.deduplicated, false);
      assert.equal(issue.priority, 2);
      assert.equal(issue.agentId, 'deploy-bot');
      assert.equal(issue.team.id, fake.teams.eng.id);
      // `Bug` is a workspace label; `ops-only` belongs to another team, so ENG gets its own.
      const names = issue.labels.map((l: { name: string }) => l.name).sort();
      assert.deepEqual(names, ['Bug', 'agent-id:deploy-bot', 'agent:ci', 'deploys', 'ops-only']);
      const created = fake.labels.filter(
        (l) =>
          ['ops-only', 'deploys', 'agent:ci', 'agent-id:deploy-bot'].includes(l.name) &&
          l.team?.id === fake.teams.eng.id,
      );
      assert.equal(created.length, 4);

      const again = await call('POST', '/api/v1/tracker/issues/agent', body);
      assert.equal(again.statusCode, 200);
      assert.deepEqual([again.json().id, again.json().deduplicated], [issue.id, true]);
      assert.equal(fake.issues.filter((i) => i.title === body.title).length, 1);

      await call('PATCH', `/api/v1/tracker/issues/${issue.id}`, { state: 'canceled' });
      const reopened = await call('POST', '/api/v1/tracker/issues/agent', body);
      assert.equal(reopened.statusCode, 201);
      assert.notEqual(reopened.json().id, issue.id);
    });

    it('answers 503 with a clear detail when no default team is configured', async () => {
      const noTeam = await buildTestApp({
        keepData: true,
        env: linearEnv(fake, { TRACKER_DEFAULT_TEAM_ID: undefined }),
      });
      try {
        const response = await noTeam.app.inject({
          method: 'POST',
          url: '/api/v1/tracker/issues/agent',
          payload: { title: 'x', agent_id: 'a' },
          headers: admin.headers,
        });
        assert.equal(response.statusCode, 503);
        assert.match(response.json().detail, /TRACKER_DEFAULT_TEAM_ID/);
      } finally {
        await noTeam.close();
      }
    });
  });

  describe('when Linear fails', () => {
    const WARN = 40;
    const ERROR = 50;
    const failureLines = (app: TestApp, from = 0) =>
      app
        .logLines()
        .slice(from)
        .filter((l) => l.msg === 'request failed' || l.dependency === 'Linear');
    /** The outage warnings since `from`: level, message and the code that told the failure. */
    const outages = (app: TestApp, from = 0) => {
      const lines = failureLines(app, from);
      assert.ok(!lines.some((l) => 'err' in l), 'an outage is logged without its error');
      return lines.map((l) => [l.level, l.msg, l.code]);
    };
    // Linear's rate limit: tracker-linear-rate-limit.test.ts.
    it('a refused key becomes 502 with the reason, and health says unreachable', async () => {
      fake.failNext('auth');
      const response = await call('GET', '/api/v1/tracker/issues/ENG-1');
      assert.equal(response.statusCode, 502);
      assert.equal(
        response.json().detail,
        'The issue tracker refused our credentials (TRACKER_API_KEY): You need to ' +
          'authenticate to access this operation.',
      );
      fake.failNext('auth');
      const health = (await call('GET', '/api/v1/tracker/health')).json();
      assert.equal(health.reachable, false);
      assert.equal(health.latency_ms, null);
      assert.match(health.detail, /refused our credentials/);
    });

    it('a wrong key configured is refused too, and never written to the log', async () => {
      const wrong = await buildTestApp({
        keepData: true,
        env: linearEnv(fake, { TRACKER_API_KEY: 'lin_api_wrong-key-0123456789' }),
      });
      try {
        const response = await wrong.app.inject({
          method: 'GET',
          url: '/api/v1/tracker/issues',
          headers: admin.headers,
        });
        assert.equal(response.statusCode, 502);
        assert.ok(!wrong.logText().includes('lin_api_wrong-key-0123456789'));
      } finally {
        await wrong.close();
      }
    });

    it('HTTP 500 becomes 502, no answer 504, and a closed port 503', async () => {
      let mark = t.logLines().length;
      fake.failNext('server-error');
      const failed = await call('POST', '/api/v1/tracker/issues', { teamId: fake.teams.eng.id, title: 'x' });
      assert.equal(failed.statusCode, 502);
      assert.equal(failed.json().detail, 'The issue tracker failed with HTTP 500');
      // Linear's 500 is a failure to look into: an error with its stack (decision 408).
      const failedLines = failureLines(t, mark);
      assert.deepEqual(
        failedLines.map((l) => [l.level, l.msg]),
        [[ERROR, 'request failed']],
      );
      assert.match(String((failedLines[0]!.err as { stack?: string }).stack), /HTTP 500[\s\S]*\n\s+at /);

      // Linear's edge answering 503 in an outage: one warning, no stack (decisions 405, 408).
      mark = t.logLines().length;
      fake.failNext('unavailable');
      const away = await call('GET', '/api/v1/tracker/issues');
      assert.equal(away.statusCode, 502);
      assert.equal(away.json().detail, 'The issue tracker failed with HTTP 503');
      assert.deepEqual(outages(t, mark), [[WARN, 'Linear unavailable (venue_5xx): answering 502', 'HTTP 503']]);

      const impatient = await buildTestApp({ keepData: true, env: linearEnv(fake, { TRACKER_TIMEOUT_MS: '500' }) });
      try {
        fake.failNext('hang');
        const slow = await impatient.app.inject({
          method: 'GET',
          url: '/api/v1/tracker/issues',
          headers: admin.headers,
        });
        assert.equal(slow.statusCode, 504);
        assert.equal(slow.json().detail, 'The issue tracker did not answer within 500 ms');
        assert.deepEqual(outages(impatient), [[WARN, 'Linear unavailable (timeout): answering 504', 'TimeoutError']]);
      } finally {
        await impatient.close();
      }

      const port = await closedPort();
      const down = await buildTestApp({
        keepData: true,
        env: linearEnv(fake, { TRACKER_API_URL: `http://127.0.0.1:${port}/graphql` }),
      });
      try {
        const response = await down.app.inject({
          method: 'GET',
          url: '/api/v1/tracker/issues',
          headers: admin.headers,
        });
        assert.equal(response.statusCode, 503);
        assert.deepEqual(response.json(), { detail: 'The issue tracker could not be reached' });
        const health = (await down.app.inject({ method: 'GET', url: '/api/v1/tracker/health' })).json();
        assert.deepEqual([health.reachable, health.detail], [false, 'The issue tracker could not be reached']);
        assert.deepEqual(outages(down), [[WARN, 'Linear unavailable (refused): answering 503', 'ECONNREFUSED']]);
        assert.ok(!down.logText().includes(`127.0.0.1:${port}`), "Linear's address is not logged");
      } finally {
        await down.close();
      }
    });
  });
});
