// Linear's rate limit (decisions 053, 952): its 429 is ours, with Retry-After, and until that time has passed
// no request of this instance goes to Linear: each would be refused, and would be spent from the allowance the
// admins' operations and the agents' filings share.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { withoutRedis } from '../../helpers/services.ts';
import { linearEnv } from './tracker-linear-fixtures.ts';
import { startLinearFake, type LinearFake } from '../../fakes/linear.ts';

describe('tracker on the Linear backend, rate limited', () => {
  // The fake announces the end of its window by the real time: the app's clock starts there and is moved by hand.
  const clock = fixedClock(new Date());
  let fake: LinearFake;
  let t: TestApp;
  let admin: TestUser;
  before(async () => {
    fake = await startLinearFake();
    t = await buildTestApp({
      clock,
      env: linearEnv(fake),
    });
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    t.app.inject({ method, url, payload: payload as object, headers: admin.headers });

  it('RATELIMITED becomes 429 with Retry-After from the reset header', async () => {
    clock.set(new Date());
    fake.failNext('ratelimited');
    const response = await call('GET', '/api/v1/tracker/issues');
    assert.equal(response.statusCode, 429);
    const retryAfter = Number(response.headers['retry-after']);
    assert.ok(retryAfter >= 29 && retryAfter <= 31, String(retryAfter));
    assert.match(response.json().detail, /rate limiting/);
  });

  it('until Retry-After has passed, every operation answers 429 at once, and nothing reaches Linear', async () => {
    const reached = fake.requests.length;
    clock.advance(10_000);
    const answers = [
      await call('GET', '/api/v1/tracker/issues'),
      await call('GET', '/api/v1/tracker/issues/ENG-1'),
      await call('PATCH', '/api/v1/tracker/issues/ENG-1', { title: 'Renamed' }),
      await call('POST', '/api/v1/tracker/issues', { teamId: fake.teams.eng.id, title: 'New' }),
      await call('POST', '/api/v1/tracker/issues/agent', { agent_id: 'bot', title: 'Filed' }),
    ];
    for (const answer of answers) {
      assert.equal(answer.statusCode, 429, answer.body);
      const retryAfter = Number(answer.headers['retry-after']);
      assert.ok(retryAfter >= 19 && retryAfter <= 21, `what is left of the window: ${retryAfter}`);
    }
    const health = (await t.app.inject({ method: 'GET', url: '/api/v1/tracker/health' })).json();
    assert.equal(health.reachable, false);
    assert.match(health.detail, /rate limiting/);
    assert.equal(fake.requests.length, reached, 'a request reached Linear within the window it announced');
  });

  it('once the window has passed, requests go to Linear again', async () => {
    clock.advance(21_000);
    const reached = fake.requests.length;
    const response = await call('GET', '/api/v1/tracker/issues');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(fake.requests.length, reached + 1);
  });
});

// Decision 1012: with Redis the wait is shared. Two instances (two apps on one Redis prefix): the first is
// told to wait, and the second, which never met the 429, sends nothing to Linear within the wait either.
describe('tracker on the Linear backend, rate limited, two instances on one Redis', {
  skip: withoutRedis('the wait Linear announced is shared between instances through Redis (REDIS_URL)'),
}, () => {
  const clock = fixedClock(new Date());
  const cachePrefix = `test:${randomUUID()}:`;
  let fake: LinearFake;
  let first: TestApp;
  let second: TestApp;
  let admin: TestUser;
  before(async () => {
    fake = await startLinearFake();
    first = await buildTestApp({ clock, env: linearEnv(fake), cachePrefix });
    second = await buildTestApp({ clock, env: linearEnv(fake), cachePrefix, keepData: true });
    admin = await signIn(first.app, first.database, { role: 'admin' });
  });
  after(async () => {
    await first.close();
    await second.close();
    await fake.close();
  });

  it("one instance's 429 pauses the other until the announced end, then both reach Linear again", async () => {
    clock.set(new Date());
    const list = (t: TestApp) => t.app.inject({ method: 'GET', url: '/api/v1/tracker/issues', headers: admin.headers });
    fake.failNext('ratelimited');
    assert.equal((await list(first)).statusCode, 429);
    const reached = fake.requests.length;
    clock.advance(10_000);
    const answer = await list(second);
    assert.equal(answer.statusCode, 429, answer.body);
    const retryAfter = Number(answer.headers['retry-after']);
    assert.ok(retryAfter >= 19 && retryAfter <= 21, `what is left of the window: ${retryAfter}`);
    assert.equal(fake.requests.length, reached, 'the second instance called Linear within the wait');
    clock.advance(21_000);
    assert.equal((await list(second)).statusCode, 200);
    assert.equal((await list(first)).statusCode, 200);
    assert.equal(fake.requests.length, reached + 2);
  });
});
