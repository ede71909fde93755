// One user cannot spend everyone's venue budget (issue 37, decision 200): a user looping syncs is held
// to their share of the venue's minute and to the per-user sync throttle (429 with Retry-After), while
// every other user still gets through; on two instances sharing Redis, one share and one throttle.
// test-runner: own process (it counts every call the venue fake receives: a timer left by an earlier file in a
// shared process could call a fake that reuses its port)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import {
  greedyLoops,
  greedyTally,
  harness,
  metric,
  syncBoth,
  tally,
  trader,
  USER_CAP,
  type Harness,
} from './venue-budget-harness.ts';

describe("one user cannot spend everyone's venue budget (decision 200)", () => {
  let h: Harness;
  let t: TestApp;
  let greedy: TestUser;
  let others: TestUser[];

  before(async () => {
    h = await harness();
    t = await buildTestApp({ env: h.env, clock: h.clock });
    greedy = await trader(t, h.fake, 500);
    others = [];
    for (let i = 0; i < 10; i++) others.push(await trader(t, h.fake, 501 + i));
  });
  after(async () => {
    await t.close();
    await h.fake.close();
  });

  it('a user looping syncs is throttled (429) within their share, and every other user still gets through', async () => {
    const greedyAnswers = await greedyLoops([t], greedy, 8);
    const { ok, throttled, shareSpent } = greedyTally(greedyAnswers);
    assert.ok(ok * 20 <= USER_CAP, `the greedy user was admitted ${ok} calls of weight 20, within ${USER_CAP}`);
    assert.ok(throttled > 0 && shareSpent > 0, `${throttled} throttled, ${shareSpent} over the share`);
    const responses = (await Promise.all(others.map((user) => syncBoth(t, user)))).flat();
    assert.deepEqual(tally(responses), { ok: responses.length, refused: 0 }, 'every other user got through');
    const again = await syncBoth(t, greedy);
    assert.deepEqual(
      again.map((r) => r.statusCode),
      [429, 429],
      'the greedy user is still held back',
    );
    assert.deepEqual(h.fake.rateLimitAnswers, { 429: 0, 418: 0 });
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.equal(metric(metrics, 'venue_budget_refusals_total', 'venue="binance",reason="user_share"'), shareSpent);

    h.clock.advance(60_000);
    const [balance, trades] = await syncBoth(t, greedy);
    assert.equal(balance!.statusCode, 200, 'a new minute gives the user a new share');
    assert.equal(trades!.statusCode, 200);
  });
});

describe('a greedy user over two instances on PostgreSQL and Redis (decision 200)', () => {
  const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
  const skip = shared ? false : 'needs DATABASE_URL and REDIS_URL: two instances share the share and the throttle';
  let h: Harness;
  let a: TestApp;
  let b: TestApp;
  let users: TestUser[];

  before(async () => {
    if (!shared) return;
    h = await harness();
    const cachePrefix = `test:user-share:${process.pid}:${Date.now()}:`;
    a = await buildTestApp({ env: h.env, clock: h.clock, cachePrefix });
    b = await buildTestApp({ env: h.env, clock: h.clock, cachePrefix, keepData: true });
    users = [];
    for (let i = 0; i < 11; i++) users.push(await trader(a, h.fake, 600 + i));
  });
  after(async () => {
    if (!shared) return;
    await a.close();
    await b.close();
    await h.fake.close();
  });

  it('a greedy user spread over both instances gets one share and one throttle, not two', { skip }, async () => {
    const [greedy, ...others] = users;
    const { ok, throttled, shareSpent } = greedyTally(await greedyLoops([a, b], greedy!, 8));
    assert.ok(ok * 20 <= USER_CAP, `admitted ${ok} calls of weight 20 over two instances, within ${USER_CAP}`);
    assert.ok(throttled > 0 && shareSpent > 0, `${throttled} throttled, ${shareSpent} over the share`);
    const responses = (await Promise.all(others.map((user, i) => syncBoth(i % 2 === 0 ? a : b, user)))).flat();
    assert.deepEqual(tally(responses), { ok: responses.length, refused: 0 }, 'every other user got through');
    assert.deepEqual(h.fake.rateLimitAnswers, { 429: 0, 418: 0 });
  });
});
