// Liveness, readiness and Prometheus metrics, on the real app and database.
// test-runner: own process (the last test closes the file's database, to show /readyz without it)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from 'typebox';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { withoutRedis } from '../../helpers/services.ts';

const NO_REDIS = withoutRedis('the Redis readiness check runs with REDIS_URL=redis://127.0.0.1:6379');

describe('health and metrics', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      routes: async (app) => {
        app.get(
          '/test/items/:item_id',
          { schema: { hide: true, params: Type.Object({ item_id: Type.String() }) } },
          async () => {
            await new Promise((resolve) => setTimeout(resolve, 20));
            return { ok: true };
          },
        );
      },
    });
  });
  after(async () => {
    await t.close();
  });

  const get = (url: string) => t.app.inject({ method: 'GET', url });

  it('/healthz answers while the process runs', async () => {
    const response = await get('/healthz');
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'ok' });
  });

  it('/readyz answers ready with the database latency', async () => {
    const response = await get('/readyz');
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.status, 'ready');
    assert.equal(body.database.status, 'up');
    assert.equal(typeof body.database.latency_ms, 'number');
    if (t.platform.cache.kind === 'redis') assert.equal(body.cache.status, 'up');
    else assert.equal(body.cache, undefined);
  });

  describe('/metrics', () => {
    let text: string;
    before(async () => {
      for (const id of ['a', 'b', 'c']) assert.equal((await get(`/test/items/${id}`)).statusCode, 200);
      await get('/api/auth/me');
      await get('/no/such/route');
      for (let i = 0; i < 3; i++) {
        await t.modules.notifications.messages.chat(
          t.database.db,
          { source: 'test', title: `t${i}`, text: 'x' },
          new Date(),
        );
      }
      const response = await get('/metrics');
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      text = response.body;
    });

    it('counts requests by route template and status, never by raw URL', () => {
      assert.match(text, /http_requests_total\{method="GET",route="\/test\/items\/:item_id",status="200"\} 3\n/);
      assert.match(text, /http_requests_total\{method="GET",route="\/api\/auth\/me",status="401"\} 1\n/);
      assert.match(text, /http_requests_total\{method="GET",route="unmatched",status="404"\} 1\n/);
      assert.ok(!text.includes('/test/items/a'));
    });

    it('has a latency histogram by route template', () => {
      assert.match(text, /http_request_duration_seconds_count\{method="GET",route="\/test\/items\/:item_id"\} 3\n/);
      // Each of those requests waited 20 ms: none can be in the 5 ms bucket, all are in the 1 s one.
      assert.match(
        text,
        /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/test\/items\/:item_id"\} 0\n/,
      );
      assert.match(
        text,
        /http_request_duration_seconds_bucket\{le="1",method="GET",route="\/test\/items\/:item_id"\} 3\n/,
      );
    });

    it('reports the outbox backlog', () => {
      assert.match(text, /# TYPE outbox_backlog gauge\noutbox_backlog 3\n/);
      assert.match(text, /outbox_dead_letters 0\n/);
    });
  });

  // Last: these close this file's Redis connection and database.
  describe('when a dependency is gone', () => {
    it('/readyz reports the cache down, the instance degraded but serving, when Redis does not answer', {
      skip: NO_REDIS,
    }, async () => {
      await t.platform.cache.close();
      const ready = await get('/readyz');
      assert.equal(ready.statusCode, 200);
      const body = ready.json();
      assert.equal(body.status, 'degraded');
      assert.equal(body.database.status, 'up');
      assert.deepEqual(body.cache, { status: 'down', fallback: 'process memory' });
    });

    it('/readyz answers 503 without the database; /healthz and /metrics still answer', async () => {
      await t.database.close();
      const ready = await get('/readyz');
      assert.equal(ready.statusCode, 503);
      assert.deepEqual(ready.json(), { detail: 'Database unavailable' });
      assert.equal((await get('/healthz')).statusCode, 200);
      assert.equal((await get('/metrics')).statusCode, 200);
    });
  });
});
