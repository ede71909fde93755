// What the Linear backend bounds: the size of an answer it reads (decision 986), and the time an agent's
// filing takes, which stays inside the filing's lock (decision 988).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LINEAR_MAX_BODY_BYTES } from '../../../src/modules/tracker/adapters/linear-client.ts';
import { HUGE_BODY_BYTES } from '../../fakes/linear.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { linearEnv, useLinearApp } from './tracker-linear-fixtures.ts';

describe('the Linear backend bounds', () => {
  const { fake, t, admin } = useLinearApp();

  it('an answer without end is read up to its bound, then abandoned: 502, and the service holds no more of it', async () => {
    fake.failNext('huge');
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/tracker/issues', headers: admin.headers });
    assert.equal(response.statusCode, 502, response.body);
    assert.equal(response.json().detail, `The issue tracker answered more than ${LINEAR_MAX_BODY_BYTES} bytes`);
    // What the fake could write past the bound sits in socket buffers, a few MiB at most.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(fake.huge.completed, 0, 'the whole body was read');
    assert.ok(fake.huge.sent < HUGE_BODY_BYTES / 8, `the fake wrote ${fake.huge.sent} bytes`);

    const next = await t.app.inject({ method: 'GET', url: '/api/v1/tracker/issues', headers: admin.headers });
    assert.equal(next.statusCode, 200, next.body);
  });

  it("an agent's filing is cut within its lock, whatever each call to Linear may take, and a retry files once", async () => {
    const lockTtlMs = 3_000;
    const short = await buildTestApp({
      keepData: true,
      modules: { agentFiling: { lockTtlMs, boundMs: 1_500 } },
      env: linearEnv(fake, {
        // One call may take longer than the whole lock lasts.
        TRACKER_TIMEOUT_MS: '5000',
      }),
    });
    try {
      const body = { title: 'Disk almost full', agent_id: 'watcher' };
      const file = () =>
        short.app.inject({
          method: 'POST',
          url: '/api/v1/tracker/issues/agent',
          payload: body,
          headers: admin.headers,
        });
      fake.failNext('hang');
      const started = performance.now();
      const cut = await file();
      const elapsed = performance.now() - started;
      assert.equal(cut.statusCode, 504, cut.body);
      assert.match(cut.json().detail, /^The agent filing did not finish within 1\.5 s/);
      assert.ok(elapsed < lockTtlMs, `the filing ran ${Math.round(elapsed)} ms, past its ${lockTtlMs} ms lock`);

      const retry = await file();
      assert.equal(retry.statusCode, 201, retry.body);
      assert.equal(fake.issues.filter((i) => i.title === body.title).length, 1);
    } finally {
      await short.close();
    }
  });
});
