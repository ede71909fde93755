// An issue created at Linear is never lost to our database, nor created twice (decision 1010). The app's pool
// speaks to PostgreSQL through a loopback TCP proxy that refuses new connections and resets the open ones the
// moment the Linear fake has carried out the create, before its answer leaves: the audit row cannot be written.
// The answer says what Linear holds (the issue was created), the intent recorded before the call keeps the
// audit, and the retry (the same Idempotency-Key, or the agent's same filing) sends nothing that creates again.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import { openDatabase, type Database } from '../../../src/platform/db/database.ts';
import { startLinearFake, type LinearFake } from '../../fakes/linear.ts';
import { startTcpProxy, type TcpProxy } from '../../fakes/tcp-proxy.ts';
import { withoutPostgres } from '../../helpers/services.ts';
import { buildTestApp, signIn, testDatabaseUrl, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { JOB_SECRET, runJob } from '../jobs/jobs-fixtures.ts';
import { linearEnv } from './tracker-linear-fixtures.ts';

const NO_POSTGRES = withoutPostgres(
  'the database is cut through a TCP proxy in front of a real server (DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)',
);

describe('tracker on the Linear backend, the database cut after Linear wrote', { skip: NO_POSTGRES }, () => {
  const clock = fixedClock(new Date());
  let proxy: TcpProxy;
  let database: Database;
  let fake: LinearFake;
  let t: TestApp;
  let admin: TestUser;

  before(async () => {
    const url = new URL((await testDatabaseUrl())!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    database = await openDatabase({ url: proxy.url(url.toString()), poolSize: 4, connectTimeoutMs: 2_000 });
    fake = await startLinearFake();
    t = await buildTestApp({
      clock,
      database,
      env: linearEnv(fake, { SCHEDULED_JOB_SECRET: JOB_SECRET, JOB_TRIGGER_WINDOW_SECONDS: '0' }),
    });
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  afterEach(async () => {
    await proxy.mode('pass');
  });
  after(async () => {
    await t?.close();
    await database?.close();
    await proxy?.close();
    await fake?.close();
  });

  /** The database gone: new connections refused, open ones reset. */
  async function cut(): Promise<void> {
    const refusing = proxy.mode('refuse');
    proxy.reset();
    await refusing;
  }
  const auditRows = (issueId: string) =>
    database.rows<{ action: string; details: { identifier: string } }>(
      sql`SELECT action, details FROM audit_log WHERE target_type = 'tracker_issue' AND target_id = ${issueId}`,
    );
  const intents = (issueId: string) => database.rows(sql`SELECT id FROM tracker_issue_intents WHERE id = ${issueId}`);
  const created = (title: string) => fake.issues.filter((i) => i.title === title);
  const warned = (issueId: string) =>
    t
      .logLines()
      .some((line) => line.level === 40 && line.issueId === issueId && /could not be audited/.test(String(line.msg)));
  const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload, headers: { ...admin.headers, ...headers } });

  it('answers the issue Linear created (201); a retry with its key creates nothing and writes the audit once', async () => {
    const key = { 'idempotency-key': randomUUID() };
    const body = { teamId: fake.teams.eng.id, title: 'Cut after the create' };
    fake.afterNext('issueCreate', cut);
    const first = await post('/api/v1/tracker/issues', body, key);
    assert.equal(first.statusCode, 201, first.body);
    const issue = first.json();
    assert.equal(created(body.title).length, 1);
    assert.equal(created(body.title)[0]!.id, issue.id);
    assert.ok(warned(issue.id), 'the audit left pending is logged');

    await proxy.mode('pass');
    assert.equal((await auditRows(issue.id)).length, 0, 'not written yet');
    assert.equal((await intents(issue.id)).length, 1, 'but its intent is kept');

    const retry = await post('/api/v1/tracker/issues', body, key);
    assert.equal(retry.statusCode, 200, retry.body);
    assert.equal(retry.json().id, issue.id);
    const again = await post('/api/v1/tracker/issues', body, key);
    assert.equal(again.json().id, issue.id);
    assert.equal(created(body.title).length, 1, 'Linear holds one issue');
    const rows = await auditRows(issue.id);
    assert.deepEqual(
      rows.map((r) => [r.action, r.details.identifier]),
      [['tracker.issue.create', issue.identifier]],
    );
    assert.equal((await intents(issue.id)).length, 0);
  });

  it("an agent's filing cut the same way: its retry answers the issue and writes the audit once", async () => {
    const body = { agent_id: 'bot-cut', title: 'Agent filing cut after the create' };
    fake.afterNext('issueCreate', cut);
    const first = await post('/api/v1/tracker/issues/agent', body);
    assert.equal(first.statusCode, 201, first.body);
    const issue = first.json();
    assert.equal(issue.deduplicated, false);
    await proxy.mode('pass');
    assert.equal((await auditRows(issue.id)).length, 0);

    const retry = await post('/api/v1/tracker/issues/agent', body);
    assert.equal(retry.statusCode, 200, retry.body);
    assert.deepEqual([retry.json().id, retry.json().deduplicated], [issue.id, true]);
    assert.equal(created(body.title).length, 1);
    assert.deepEqual(
      (await auditRows(issue.id)).map((r) => r.action),
      ['tracker.issue.agent_file'],
    );
  });

  it('an intent left behind without a retry is settled by a later write; one Linear never made is dropped', async () => {
    fake.afterNext('issueCreate', cut);
    const lost = await post('/api/v1/tracker/issues', { teamId: fake.teams.eng.id, title: 'Never retried' });
    assert.equal(lost.statusCode, 201, lost.body);
    await proxy.mode('pass');
    // A create whose answer never came and that Linear never carried out: an intent of an issue that is not there.
    const missing = randomUUID();
    await database.rows(
      sql`INSERT INTO tracker_issue_intents (id, audit, created_at) VALUES (${missing}, ${JSON.stringify({
        action: 'tracker.issue.create',
        actorId: admin.id,
        ip: null,
        details: {},
      })}::jsonb, ${clock.now().toISOString()}::timestamptz)`,
    );
    clock.advance(121_000);
    const later = await post('/api/v1/tracker/issues', { teamId: fake.teams.eng.id, title: 'A later one' });
    assert.equal(later.statusCode, 201, later.body);
    assert.deepEqual(
      (await auditRows(lost.json().id)).map((r) => r.details.identifier),
      [lost.json().identifier],
    );
    assert.equal((await auditRows(later.json().id)).length, 1);
    assert.equal((await intents(lost.json().id)).length, 0);
    assert.equal((await intents(missing)).length, 0, 'nothing at Linear has that id: the intent is dropped');
    assert.equal((await auditRows(missing)).length, 0);
  });

  it('an intent no retry or write comes back for is settled by settle-issue-intents (decision 1170)', async () => {
    fake.afterNext('issueCreate', cut);
    const lost = await post('/api/v1/tracker/issues', { teamId: fake.teams.eng.id, title: 'Nobody writes after' });
    assert.equal(lost.statusCode, 201, lost.body);
    await proxy.mode('pass');
    const none = { checked: 0, audited: 0, dropped: 0 };
    // Within an agent filing's lock a create of ours may still be in flight: left alone.
    assert.deepEqual((await runJob(t.app, 'settle-issue-intents')).result, none);
    assert.equal((await intents(lost.json().id)).length, 1);

    clock.advance(121_000);
    const run = await runJob(t.app, 'settle-issue-intents');
    assert.deepEqual(run.result, { checked: 1, audited: 1, dropped: 0 });
    assert.deepEqual(
      (await auditRows(lost.json().id)).map((r) => [r.action, r.details.identifier]),
      [['tracker.issue.create', lost.json().identifier]],
    );
    assert.equal((await intents(lost.json().id)).length, 0);
    assert.deepEqual((await runJob(t.app, 'settle-issue-intents')).result, none, 'audited once');
    assert.equal((await auditRows(lost.json().id)).length, 1);
  });

  it('settle-issue-intents fails, leaving every intent, while Linear does not answer', async () => {
    fake.afterNext('issueCreate', cut);
    const lost = await post('/api/v1/tracker/issues', { teamId: fake.teams.eng.id, title: 'Linear away after' });
    assert.equal(lost.statusCode, 201, lost.body);
    await proxy.mode('pass');
    clock.advance(121_000);
    fake.failNext('unavailable');
    const run = await runJob(t.app, 'settle-issue-intents');
    assert.equal(run.status, 'failed', JSON.stringify(run));
    assert.equal((await intents(lost.json().id)).length, 1, 'kept for the next run');
    assert.deepEqual((await runJob(t.app, 'settle-issue-intents')).result, { checked: 1, audited: 1, dropped: 0 });
  });
});
