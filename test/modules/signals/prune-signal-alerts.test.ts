// prune-signal-alerts: the claims of alerts received before the retention go, in batches, and the
// younger ones stay (a repeated copy of their alert still finds its order); a second run deletes nothing.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { ALERT_RETENTION_DAYS, pruneSignalAlertsJob } from '../../../src/modules/signals/prune-signal-alerts.job.ts';
import { createSignalsRepository } from '../../../src/modules/signals/signals.repository.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { buildTestApp, resetDatabase, signIn, type TestApp } from '../../helpers/test-app.ts';
import { DAY, HOUR, JOB_SECRET, NOW, runJob } from '../jobs/jobs-fixtures.ts';
import { makeHook as makeHookOf } from './signals-fixtures.ts';

describe('prune-signal-alerts', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      clock: fixedClock(NOW),
      env: { SCHEDULED_JOB_SECRET: JOB_SECRET, JOB_TRIGGER_WINDOW_SECONDS: '0' },
    });
  });
  beforeEach(() => resetDatabase(t.database));
  after(() => t.close());

  const makeHook = async (): Promise<string> => (await makeHookOf(t.app, (await signIn(t.app, t.database)).headers)).id;
  // A claim's age is state no operation sets: the claims are written as the alert route writes them.
  const claim = (hookId: string, alertKey: string, ageMs: number) =>
    t.database.db.execute(sql`INSERT INTO signal_alerts (hook_id, alert_key, received_at)
      VALUES (${hookId}::uuid, ${alertKey}, ${new Date(NOW.getTime() - ageMs)})`);
  const keys = async () =>
    (await t.database.rows<{ alert_key: string }>(sql`SELECT alert_key FROM signal_alerts ORDER BY alert_key`)).map(
      (row) => row.alert_key,
    );

  it(`deletes the claims received more than ${ALERT_RETENTION_DAYS} days ago and keeps the others`, async () => {
    const hook = await makeHook();
    await claim(hook, 'long@old', (ALERT_RETENTION_DAYS + 5) * DAY);
    await claim(hook, 'long@edge', ALERT_RETENTION_DAYS * DAY + HOUR);
    await claim(hook, 'long@recent', (ALERT_RETENTION_DAYS - 1) * DAY);
    await claim(hook, 'long@today', HOUR);
    const run = await runJob(t.app, 'prune-signal-alerts');
    assert.equal(run.status, 'succeeded');
    assert.deepEqual(run.result, { deleted: 2, retention_days: ALERT_RETENTION_DAYS });
    assert.deepEqual(await keys(), ['long@recent', 'long@today']);
    assert.deepEqual((await runJob(t.app, 'prune-signal-alerts')).result, {
      deleted: 0,
      retention_days: ALERT_RETENTION_DAYS,
    });
  });

  it('deletes in batches until none is left, the younger claims untouched', async () => {
    const hook = await makeHook();
    for (let i = 0; i < 7; i++) await claim(hook, `old-${i}`, (ALERT_RETENTION_DAYS + 1) * DAY + i * HOUR);
    await claim(hook, 'young', DAY);
    const repo = createSignalsRepository(t.database.db);
    const statements: number[] = [];
    const counted = {
      deleteReceivedBefore: async (before: Date, limit: number) => {
        const n = await repo.deleteReceivedBefore(before, limit);
        statements.push(n);
        return n;
      },
    };
    const result = await pruneSignalAlertsJob.run({ alerts: counted, batch: 3 }, NOW);
    assert.equal(result.deleted, 7);
    assert.deepEqual(statements, [3, 3, 1]);
    assert.deepEqual(await keys(), ['young']);
  });

  it('is listed in health with its schedule', async () => {
    const health = (await t.app.inject({ method: 'GET', url: '/api/scheduled/health' })).json();
    const listed = health.jobs.find((job: { name: string }) => job.name === 'prune-signal-alerts');
    assert.equal(listed?.cron, pruneSignalAlertsJob.cron);
  });
});
