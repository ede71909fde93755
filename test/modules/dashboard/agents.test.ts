import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { buildTestApp, resetDatabase, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const NOW = '2031-04-01T10:00:00.000Z';
const URL = '/api/v1/dashboard/agents';
const ACTIVITY = '/api/admin/command-center/agent-activity';
const TASKS = '/api/admin/command-center/tasks';
const MIN = 60_000;

describe('GET /api/v1/dashboard/agents', () => {
  const clock = fixedClock(NOW);
  let t: TestApp;
  let admin: TestUser;
  before(async () => {
    t = await buildTestApp({ clock });
  });
  after(() => t.close());
  beforeEach(async () => {
    clock.set(NOW);
    await resetDatabase(t.database);
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });

  const post = async (url: string, payload: object) => {
    // Access tokens last 15 minutes and these tests move the clock by days: log in at the current time.
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: admin.email, password: admin.password },
    });
    const headers = { authorization: `Bearer ${login.json().access_token}` };
    const response = await t.app.inject({ method: 'POST', url, headers, payload });
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };
  /** Reports activity `minutesAgo` before the final reading time. */
  const report = async (agentId: string, at: number, name?: string) => {
    clock.set(new Date(Date.parse(NOW) + at * MIN));
    await post(ACTIVITY, { agent_id: agentId, kind: 'order', ...(name ? { agent_name: name } : {}) });
  };

  it('answers an empty list with the thresholds when no agent is known, without authentication', async () => {
    const response = await t.app.inject({ method: 'GET', url: URL });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      generated_at: NOW,
      thresholds: { active_within_minutes: 15, idle_within_hours: 24 },
      counts: { active: 0, idle: 0, silent: 0 },
      agents: [],
    });
  });

  it(
    'lists every agent from activity or agent-filed tasks ' + 'with last seen, 24 h actions, open tasks and status',
    async () => {
      // Read at NOW + 2 days; times below are minutes from NOW.
      const readAt = 2 * 24 * 60;
      await report('old-bot', 0, 'Old bot'); // 48 h before reading: silent, no actions in 24 h
      await report('idle-bot', readAt - 60, 'Idle bot'); // 1 h: idle
      await report('busy-bot', readAt - 30);
      await report('busy-bot', readAt - 15, 'Busy bot'); // exactly 15 min: still active
      await report('busy-bot', readAt - 1);
      clock.set(new Date(Date.parse(NOW) + readAt * MIN));
      await post(TASKS, { title: 'Fix the feed', source_type: 'agent', source_id: 'filer-bot', assignee: 'busy-bot' });
      await post(TASKS, { title: 'Another one', assignee: 'busy-bot' });
      await post(TASKS, { title: 'Human work', assignee: 'alice' });

      const response = await t.app.inject({ method: 'GET', url: URL });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.deepEqual(body.counts, { active: 1, idle: 1, silent: 2 });
      assert.deepEqual(body.agents, [
        {
          id: 'busy-bot',
          name: 'Busy bot',
          last_seen_at: '2031-04-03T09:59:00.000Z',
          actions_24h: 3,
          open_tasks: 2,
          status: 'active',
        },
        {
          id: 'idle-bot',
          name: 'Idle bot',
          last_seen_at: '2031-04-03T09:00:00.000Z',
          actions_24h: 1,
          open_tasks: 0,
          status: 'idle',
        },
        { id: 'old-bot', name: 'Old bot', last_seen_at: NOW, actions_24h: 0, open_tasks: 0, status: 'silent' },
        { id: 'filer-bot', name: null, last_seen_at: null, actions_24h: 0, open_tasks: 0, status: 'silent' },
      ]);
      assert.ok(
        !body.agents.some((a: { id: string }) => a.id === 'alice'),
        'assignees of human-filed tasks are not agents',
      );
    },
  );

  it('shows no e-mail address: a person an agent-filed task is assigned to is not listed, a name is masked (decision 954)', async () => {
    await report('mail-bot', 0, 'Bot run by bob@example.com');
    await post(TASKS, {
      title: 'Look at the feed',
      source_type: 'agent',
      source_id: 'filer-bot',
      assignee: 'alice@example.com',
    });
    clock.advance(60_000);
    const response = await t.app.inject({ method: 'GET', url: URL });
    assert.equal(response.statusCode, 200);
    for (const address of ['alice@example.com', 'bob@example.com', 'example.com'])
      assert.ok(!response.body.includes(address), `the public agents answer shows ${address}: ${response.body}`);
    const body = response.json();
    assert.deepEqual(
      body.agents.map((a: { id: string; name: string | null }) => [a.id, a.name]),
      [
        ['mail-bot', 'Bot run by [e-mail]'],
        ['filer-bot', null],
      ],
    );
    assert.deepEqual(body.counts, { active: 1, idle: 0, silent: 1 });
  });

  it('moves an agent from active to idle to silent as time passes', async () => {
    await report('bot', 0, 'Bot');
    const statusAfter = async (minutes: number) => {
      clock.set(new Date(Date.parse(NOW) + minutes * MIN));
      return (await t.app.inject({ method: 'GET', url: URL })).json().agents[0].status;
    };
    assert.equal(await statusAfter(15), 'active');
    assert.equal(await statusAfter(16), 'idle');
    assert.equal(await statusAfter(24 * 60), 'idle');
    assert.equal(await statusAfter(24 * 60 + 1), 'silent');
  });

  it('answers 405 with Allow to a POST, as for any path served under other methods (decision 096)', async () => {
    const response = await t.app.inject({ method: 'POST', url: URL, payload: {} });
    assert.equal(response.statusCode, 405);
    assert.deepEqual(response.json(), { detail: 'Method Not Allowed' });
    assert.equal(response.headers.allow, 'GET, HEAD');
  });
});
