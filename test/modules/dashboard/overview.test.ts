import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import { type JobRun, OVERVIEW_REUSE_MS } from '../../../src/modules/dashboard/index.ts';
import { vercelDelivery } from '../../fakes/webhook-senders.ts';
import { recordStatements } from '../../helpers/statements.ts';
import { buildTestApp, resetDatabase, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { WIRED, wiredDashboard } from './dashboard-kit.ts';
import { awaitRun } from '../jobs/jobs-fixtures.ts';

const NOW = '2031-04-01T10:00:00.000Z';
const URL = '/api/v1/dashboard/overview';
const EDGE_SECRET = 'edge-secret-for-the-overview-0123456789';
const runs: JobRun[] = [
  {
    job: 'rotate-api-keys',
    status: 'failed',
    trigger: 'scheduler',
    startedAt: new Date('2031-04-01T09:00:00Z'),
    finishedAt: new Date('2031-04-01T09:00:02Z'),
    error: 'chat post to https://hooks.example.com/services/T1/B2/s3cr3tpath failed',
  },
  {
    job: 'cleanup-expired-tokens',
    status: 'succeeded',
    trigger: 'http',
    startedAt: new Date('2031-04-01T08:00:00Z'),
    finishedAt: null,
    error: null,
  },
];

describe('GET /api/v1/dashboard/overview', () => {
  const clock = fixedClock(NOW);
  let t: TestApp;
  let admin: TestUser;
  before(async () => {
    t = await buildTestApp({
      clock,
      env: { EDGE_WEBHOOK_SECRET: EDGE_SECRET },
      routes: wiredDashboard({ lastRuns: async () => runs }),
    });
  });
  after(() => t.close());
  beforeEach(async () => {
    clock.set(NOW);
    await resetDatabase(t.database);
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });

  const get = (url = URL) => t.app.inject({ method: 'GET', url });

  it('answers version, uptime, database and cache, publicly, and no job runs before any job ran', async () => {
    clock.advance(90_000);
    const response = await get();
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.status, 'ok');
    assert.equal(body.generated_at, '2031-04-01T10:01:30.000Z');
    assert.equal(body.service.version, '0.1.0');
    assert.equal(body.service.uptime_seconds, 90);
    assert.equal(body.service.started_at, NOW);
    assert.deepEqual(Object.keys(body.service).sort(), ['started_at', 'uptime_seconds', 'version']);
    assert.equal(body.database.kind, process.env.DATABASE_URL ? 'postgres' : 'pglite');
    assert.equal(body.database.status, 'up');
    assert.equal(typeof body.database.latency_ms, 'number');
    assert.deepEqual([body.cache.kind, body.cache.status], [process.env.REDIS_URL ? 'redis' : 'memory', 'up']);
    assert.deepEqual(body.jobs, []);
  });

  it('counts users by status, active sessions, open tasks, deliveries in 24 h and the outbox', async () => {
    const bob = await signIn(t.app, t.database);
    await signIn(t.app, t.database);
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${bob.id}`,
      headers: admin.headers,
      payload: { status: 'suspended' },
    });
    assert.equal(patch.statusCode, 200, patch.body);
    // Suspension revokes bob's session: admin and the third user keep theirs; an expired one does not count.
    await t.database.db.execute(
      sql`INSERT INTO device_sessions (user_id, expires_at) VALUES (${admin.id}, ${'2031-03-01T00:00:00Z'})`,
    );

    const tasks = '/api/admin/command-center/tasks';
    const create = (title: string) =>
      t.app.inject({ method: 'POST', url: tasks, headers: admin.headers, payload: { title } });
    await create('First task');
    await create('Second task');
    const done = (await create('Finished task')).json();
    await t.app.inject({
      method: 'PATCH',
      url: `${tasks}/${done.id}`,
      headers: admin.headers,
      payload: { status: 'in_progress' },
    });
    const closed = (await create('Closed task')).json();
    await t.app.inject({
      method: 'PATCH',
      url: `${tasks}/${closed.id}`,
      headers: admin.headers,
      payload: { status: 'done' },
    });

    const deployment = (id: string) => ({
      id,
      type: 'deployment.created',
      createdAt: Date.parse(NOW),
      payload: { deployment: { id: `dpl_${id}`, name: 'web' } },
    });
    const deliver = async (id: string) => {
      const sent = vercelDelivery(EDGE_SECRET, deployment(id));
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks/platforms/edge',
        headers: sent.headers,
        payload: sent.body,
      });
      assert.equal(response.statusCode, 200, response.body);
    };
    await deliver('old');
    clock.advance(25 * 3_600_000);
    await deliver('a');
    await deliver('b');

    await t.modules.notifications.messages.chat(
      t.database.db,
      { source: 'test', title: 'waiting', text: 'x' },
      clock.now(),
    );
    await t.modules.notifications.messages.chat(
      t.database.db,
      { source: 'test', title: 'dead', text: 'x' },
      clock.now(),
      'dead-one',
    );
    await t.database.db.execute(sql`UPDATE outbox SET status = 'dead' WHERE dedupe_key = 'dead-one'`);

    const body = (await get()).json();
    assert.equal(body.status, 'ok');
    assert.deepEqual(body.counts.users_by_status, { active: 2, suspended: 1, deleted: 0 });
    assert.equal(body.counts.active_sessions, 2);
    assert.deepEqual(body.counts.open_tasks_by_status, { todo: 2, in_progress: 1, blocked: 0, in_review: 0 });
    assert.equal(body.counts.open_tasks, 3);
    assert.equal(body.counts.webhook_deliveries_24h.total, 2, 'the delivery of 25 hours ago is out');
    assert.equal(body.counts.webhook_deliveries_24h.by_provider.edge, 2);
    assert.equal(body.counts.webhook_deliveries_24h.by_provider.codehost, 0);
    assert.equal(Object.keys(body.counts.webhook_deliveries_24h.by_provider).length, 8);
    assert.deepEqual(body.counts.outbox, { backlog: 1, dead_letters: 1 });
  });

  it('lists the last run of each job from the jobs port, by name, errors cleaned', async () => {
    const body = (await get(`${WIRED}${URL}`)).json();
    assert.deepEqual(body.jobs, [
      {
        job: 'cleanup-expired-tokens',
        status: 'succeeded',
        trigger: 'http',
        started_at: '2031-04-01T08:00:00.000Z',
        finished_at: null,
        error: null,
      },
      {
        job: 'rotate-api-keys',
        status: 'failed',
        trigger: 'scheduler',
        started_at: '2031-04-01T09:00:00.000Z',
        finished_at: '2031-04-01T09:00:02.000Z',
        error: 'chat post to https://hooks.example.com failed',
      },
    ]);
  });

  it('is computed once for concurrent anonymous callers and reused for 5 s: a loop costs no statement per request (decision 747)', async () => {
    clock.advance(OVERVIEW_REUSE_MS);
    const recorded = recordStatements(t.database);
    try {
      assert.equal((await get()).statusCode, 200);
      const one = recorded.texts.length;
      assert.ok(one >= 6, `one overview is its statements (${one})`);

      recorded.clear();
      const answers = await Promise.all(Array.from({ length: 20 }, () => get()));
      for (const answer of answers) assert.equal(answer.statusCode, 200);
      assert.equal(recorded.texts.length, 0, 'within the window, the answer computed before is reused');

      clock.advance(OVERVIEW_REUSE_MS);
      const fresh = await Promise.all(Array.from({ length: 20 }, () => get()));
      assert.equal(recorded.texts.length, one, `20 concurrent callers after the window share one computation`);
      assert.equal(new Set(fresh.map((answer) => answer.json().generated_at)).size, 1);
      assert.notEqual(fresh[0]!.json().generated_at, answers[0]!.json().generated_at);
    } finally {
      recorded.stop();
    }
  });

  it(
    'answers 405 with Allow to any other method, as for ' + 'any path served under other methods (decision 096)',
    async () => {
      for (const method of ['POST', 'PUT', 'DELETE'] as const) {
        const response = await t.app.inject({ method, url: URL, payload: {} });
        assert.equal(response.statusCode, 405);
        assert.deepEqual(response.json(), { detail: 'Method Not Allowed' });
        assert.equal(response.headers.allow, 'GET, HEAD');
      }
    },
  );
});

describe('overview on the real app: the jobs module wired in app.ts', () => {
  const JOB_SECRET = 'overview-job-secret-0123456789';
  let t: TestApp;
  const clock = fixedClock(NOW);
  before(async () => {
    t = await buildTestApp({ clock, env: { SCHEDULED_JOB_SECRET: JOB_SECRET } });
  });
  after(() => t.close());

  it('lists a job run triggered over HTTP, and not a trigger that was refused', async () => {
    assert.deepEqual((await t.app.inject({ method: 'GET', url: URL })).json().jobs, []);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/scheduled/cleanup-expired-tokens',
      headers: { 'x-scheduled-job-secret': 'wrong' },
    });
    assert.equal(refused.statusCode, 401);

    clock.advance(5_000);
    const ran = await t.app.inject({
      method: 'POST',
      url: '/api/scheduled/cleanup-device-sessions',
      headers: { 'x-scheduled-job-secret': JOB_SECRET },
    });
    assert.equal(ran.statusCode, 202, ran.body);
    await awaitRun(t.app, ran.json().run_id, JOB_SECRET);

    const response = await t.app.inject({ method: 'GET', url: URL });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().status, 'ok');
    assert.deepEqual(response.json().jobs, [
      {
        job: 'cleanup-device-sessions',
        status: 'succeeded',
        trigger: 'http',
        started_at: '2031-04-01T10:00:05.000Z',
        finished_at: '2031-04-01T10:00:05.000Z',
        error: null,
      },
    ]);
  });
});

describe('overview with a failing dependency', () => {
  it('shows a figure it cannot read as null and says degraded, never a 500', async () => {
    const t = await buildTestApp({
      routes: wiredDashboard({ lastRuns: async () => Promise.reject(new Error('jobs table missing')) }),
    });
    try {
      const response = await t.app.inject({ method: 'GET', url: `${WIRED}${URL}` });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.status, 'degraded');
      assert.equal(body.jobs, null);
      assert.deepEqual(body.counts.users_by_status, { active: 0, suspended: 0, deleted: 0 });
      assert.ok(
        t.logLines().some((line) => line.msg === 'dashboard figure could not be read' && line.figure === 'jobs'),
      );
    } finally {
      await t.close();
    }
  });
});
