// The scheduled jobs while PostgreSQL is away (DESIGN §8: 503 with Retry-After within the query timeout): the
// database is cut for real, through a loopback TCP proxy in front of a real server, which refuses new
// connections and resets the open ones.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { openDatabase, type Database } from '../../../src/platform/db/database.ts';
import { startTcpProxy, type TcpProxy } from '../../fakes/tcp-proxy.ts';
import { withoutPostgres } from '../../helpers/services.ts';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { buildTestApp, testDatabaseUrl, type TestApp } from '../../helpers/test-app.ts';

const NO_POSTGRES = withoutPostgres('the database is cut through a TCP proxy in front of a real server');
const SECRET = 'jobs-outage-secret-0123456789abcdefghij';

describe('scheduled jobs while the database is away', { skip: NO_POSTGRES }, () => {
  let proxy: TcpProxy;
  let database: Database;
  let t: TestApp;
  before(async () => {
    const url = new URL((await testDatabaseUrl())!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    database = await openDatabase({ url: proxy.url(url.toString()), poolSize: 4, connectTimeoutMs: 2_000 });
    t = await buildTestApp({ database, env: { SCHEDULED_JOB_SECRET: SECRET } });
  });
  after(async () => {
    await proxy?.mode('pass');
    await t?.close();
    await proxy?.close();
  });

  const assertRetryAfter = (response: { headers: Record<string, unknown> }, what: string) => {
    const seconds = Number(response.headers['retry-after']);
    assert.ok(Number.isInteger(seconds) && seconds >= 1, `${what}: Retry-After ${response.headers['retry-after']}`);
  };

  it('a trigger, a run and health answer 503 with Retry-After, and the jobs run again once it is back', async () => {
    // The mode waits for the open connections to end: the reset ends them.
    const refusing = proxy.mode('refuse');
    proxy.reset();
    await refusing;
    const trigger = await t.app.inject({
      method: 'POST',
      url: '/api/scheduled/cleanup-expired-tokens',
      headers: { 'x-scheduled-job-secret': SECRET },
    });
    assert.equal(trigger.statusCode, 503, trigger.body);
    assert.equal(trigger.json().run_id, null);
    assertRetryAfter(trigger, 'the trigger');
    const health = await t.app.inject({ method: 'GET', url: '/api/scheduled/health' });
    assert.equal(health.statusCode, 503, health.body);
    assertRetryAfter(health, 'health');
    const run = await t.app.inject({
      method: 'GET',
      url: `/api/scheduled/runs/${randomUUID()}`,
      headers: { 'x-scheduled-job-secret': SECRET },
    });
    assert.equal(run.statusCode, 503, run.body);
    assertRetryAfter(run, 'a run');

    await proxy.mode('pass');
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/scheduled/cleanup-expired-tokens',
      headers: { 'x-scheduled-job-secret': SECRET },
    });
    assert.equal(again.statusCode, 202, again.body);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/scheduled/health' })).statusCode, 200);
  });
});
