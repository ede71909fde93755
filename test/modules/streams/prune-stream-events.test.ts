// prune-stream-events: what it deletes and keeps, who may trigger it, and that its runs are recorded
// but not announced on admins' streams.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import { buildTestApp, resetDatabase, signIn, type TestApp } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import { HOUR, JOB_SECRET, NOW, runJob, trigger } from '../jobs/jobs-fixtures.ts';

describe('prune-stream-events', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      clock: fixedClock(NOW),
      env: { SCHEDULED_JOB_SECRET: JOB_SECRET, JOB_TRIGGER_WINDOW_SECONDS: '0' },
    });
  });
  beforeEach(() => resetDatabase(t.database));
  after(() => t.close());

  const storeEvent = (hoursAgo: number, userId: string) =>
    t.database.db.execute(sql`INSERT INTO stream_events (type, audience, user_id, data, created_at)
      VALUES ('balance.synced', 'user', ${userId}::uuid, '{}'::jsonb, ${new Date(NOW.getTime() - hoursAgo * HOUR)})`);
  const storedTypes = async () =>
    (
      await t.database.rows<{ type: string; data: { job?: string } }>(
        sql`SELECT type, data FROM stream_events ORDER BY id`,
      )
    ).map((row) => (row.type === 'job.finished' ? `job.finished:${row.data.job}` : row.type));

  it('deletes the events older than the 24 h replay window and keeps the others', async () => {
    const user = await signIn(t.app, t.database);
    await storeEvent(48, user.id);
    await storeEvent(25, user.id);
    await storeEvent(23, user.id);
    await storeEvent(1, user.id);
    const run = await runJob(t.app, 'prune-stream-events');
    assert.equal(run.status, 'succeeded');
    assert.deepEqual(run.result, { deleted: 2 });
    assert.deepEqual(await storedTypes(), ['balance.synced', 'balance.synced']);
    assert.deepEqual((await runJob(t.app, 'prune-stream-events')).result, { deleted: 0 });
  });

  it('is recorded and listed in health, and not announced as job.finished (other jobs are)', async () => {
    await signIn(t.app, t.database, { role: 'admin' });
    await runJob(t.app, 'prune-stream-events');
    await runJob(t.app, 'cleanup-expired-tokens');
    // A run is announced just after its end is recorded, so the announcement is awaited, not assumed.
    await waitFor(async () => (await storedTypes()).length > 0, 'the cleanup run announced');
    assert.deepEqual(await storedTypes(), ['job.finished:cleanup-expired-tokens']);
    const health = (await t.app.inject({ method: 'GET', url: '/api/scheduled/health' })).json();
    const listed = health.jobs.find((job: { name: string }) => job.name === 'prune-stream-events');
    assert.equal(listed?.last_run?.status, 'succeeded');
  });

  it('needs the scheduled-job secret', async () => {
    assert.equal((await trigger(t.app, 'prune-stream-events', null)).statusCode, 422);
    assert.equal((await trigger(t.app, 'prune-stream-events', 'wrong-secret')).statusCode, 401);
  });
});
