// What an anonymous loop on the public dashboard answers costs the database (decision 950): the agents and
// integrations answers read nothing of the request, so one computation serves every caller for a while.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { DASHBOARD_REUSE_MS } from '../../../src/modules/dashboard/index.ts';
import { recordStatements } from '../../helpers/statements.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';

const NOW = '2031-04-01T10:00:00.000Z';

describe('the public dashboard answers, under an anonymous loop', () => {
  const clock = fixedClock(NOW);
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { MARKET_DATA_SOURCE: 'simulated' } });
    const admin = await signIn(t.app, t.database, { role: 'admin' });
    for (const agent_id of ['bot-1', 'bot-2']) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/admin/command-center/agent-activity',
        headers: admin.headers,
        payload: { agent_id, kind: 'order' },
      });
      assert.equal(response.statusCode, 201, response.body);
    }
  });
  after(() => t.close());

  for (const path of ['agents', 'integrations']) {
    it(`${path}: computed once for concurrent anonymous callers and reused for ${DASHBOARD_REUSE_MS / 1000} s`, async () => {
      const get = () => t.app.inject({ method: 'GET', url: `/api/v1/dashboard/${path}` });
      clock.advance(DASHBOARD_REUSE_MS);
      const recorded = recordStatements(t.database);
      try {
        assert.equal((await get()).statusCode, 200);
        const one = recorded.texts.length;
        assert.ok(one >= 1, `one ${path} answer reads the database (${one} statements)`);

        recorded.clear();
        const answers = await Promise.all(Array.from({ length: 20 }, () => get()));
        for (const answer of answers) assert.equal(answer.statusCode, 200);
        assert.equal(
          recorded.texts.length,
          0,
          `within the window, 20 callers sent ${recorded.texts.length} statements`,
        );

        clock.advance(DASHBOARD_REUSE_MS);
        const fresh = await Promise.all(Array.from({ length: 20 }, () => get()));
        // A first answer may read once what later ones do not (at most the first's statements).
        const again = recorded.texts.length;
        assert.ok(again >= 1 && again <= one, `20 concurrent callers after the window sent ${again} statements`);
        assert.equal(new Set(fresh.map((answer) => answer.json().generated_at)).size, 1);
        assert.notEqual(fresh[0]!.json().generated_at, answers[0]!.json().generated_at);
      } finally {
        recorded.stop();
      }
    });
  }
});
