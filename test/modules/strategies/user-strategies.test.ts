// Users' own strategies: create, list, read (another user's is a 404), the trade scopes, and the
// figures their paper fills give them, which the autopilot then promotes on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertIssue } from '../../helpers/error-assertions.ts';
import { shiftedClock } from '../../helpers/shifted-clock.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import type { StrategyFill } from '../../../src/modules/strategies/index.ts';

type Strategy = { id: string; name: string; status: string; owner_user_id: string; metrics: Record<string, unknown> };

describe('user strategies', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  const clock = shiftedClock();
  const call = (method: 'GET' | 'POST', url: string, user: TestUser | null, payload?: object) =>
    t.app.inject({ method, url, headers: user ? user.headers : {}, ...(payload ? { payload } : {}) });
  const create = async (user: TestUser, name: string) => {
    const r = await call('POST', '/api/strategies', user, { name });
    assert.equal(r.statusCode, 201, r.body);
    return r.json<Strategy>();
  };

  before(async () => {
    t = await buildTestApp({ clock });
    alice = await signIn(t.app, t.database);
    bob = await signIn(t.app, t.database);
  });
  after(() => t?.close());

  it('creates a strategy of your own in paper trading, and lists and reads only yours', async () => {
    const mine = await create(alice, 'Mean reversion');
    assert.equal(mine.status, 'paper');
    assert.equal(mine.owner_user_id, alice.id);
    assert.deepEqual(mine.metrics, { paper_trades: null, win_rate: null, return_pct: null, max_drawdown_pct: null });
    const theirs = await create(bob, 'Momentum');

    const list = (await call('GET', '/api/strategies', alice)).json<{ strategies: Strategy[]; total: number }>();
    assert.deepEqual(
      list.strategies.map((s) => s.name),
      ['Mean reversion'],
    );
    assert.equal(list.total, 1);
    const one = await call('GET', `/api/strategies/${mine.id}`, alice);
    assert.equal(one.statusCode, 200);
    assert.equal(one.json<{ promotion: { eligible: boolean } }>().promotion.eligible, false);
    const other = await call('GET', `/api/strategies/${theirs.id}`, alice);
    assert.deepEqual([other.statusCode, other.json()], [404, { detail: 'Strategy not found' }]);

    assert.equal(await t.modules.strategies.userStrategies.isOwnedBy(mine.id, alice.id), true);
    assert.equal(await t.modules.strategies.userStrategies.isOwnedBy(theirs.id, alice.id), false);
    assert.equal(await t.modules.strategies.userStrategies.isOwnedBy('not-a-uuid', alice.id), false);
  });

  it('answers a 422 for a bad name or id, 401 without a token, 403 without the trade scope', async () => {
    assertIssue(await call('POST', '/api/strategies', alice, { name: '' }), ['body', 'name'], 'string_too_short');
    assertIssue(await call('GET', '/api/strategies/nope', alice), ['path', 'strategy_id'], 'uuid_parsing');
    assert.equal((await call('GET', '/api/strategies', null)).statusCode, 401);
    assert.equal((await call('POST', '/api/strategies', null, { name: 'x' })).statusCode, 401);
    const made = await call('POST', '/api/auth/tokens', alice, { name: 'reader', scopes: ['trade:read'] });
    const reader = { authorization: `Bearer ${made.json<{ token: string }>().token}` };
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/strategies', headers: reader })).statusCode, 200);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/strategies',
      headers: reader,
      payload: { name: 'x' },
    });
    assert.equal(refused.statusCode, 403);
  });

  it('fills its figures from paper fills, each fill counted once, and the autopilot promotes on them', async () => {
    const strategy = await create(alice, 'Scalper');
    const start = clock.now().getTime();
    const fills: StrategyFill[] = [];
    // 30 round trips: buy 1 BTC at 100, sell it at 101 (fees 0.1 USDT a side): +0.8 each.
    for (let i = 0; i < 30; i++) {
      const at = (k: number) => new Date(start + (2 * i + k) * 60_000);
      const leg = (side: 'buy' | 'sell', price: string, k: number): StrategyFill => ({
        tradeId: `paper:${i}-${side}`,
        orderId: `o-${i}-${side}`,
        symbol: 'BTC/USDT',
        side,
        price,
        amount: '1',
        fee: '0.1',
        feeCurrency: 'USDT',
        at: at(k),
      });
      fills.push(leg('buy', '100', 0), leg('sell', '101', 1));
    }
    const { recordFills } = t.modules.strategies.userStrategies;
    await recordFills(strategy.id, fills.slice(0, 30));
    // Reported again with the rest: the first 30 are stored once.
    const figures = await recordFills(strategy.id, fills);
    // Capital 100.1; 30 × 0.8 = 24 gained: 23.976 %.
    assert.deepEqual(figures, { paper_trades: 30, win_rate: 1, return_pct: 23.976, max_drawdown_pct: 0 });
    const read = (await call('GET', `/api/strategies/${strategy.id}`, alice)).json<Strategy>();
    assert.deepEqual(read.metrics, figures);
    assert.equal(await recordFills('00000000-0000-4000-8000-000000000000', fills), null);

    const evaluation = await t.modules.strategies.service.evaluatePaper(new Date(start + 15 * 86_400_000), 10);
    assert.ok(evaluation.promotedIds.includes(strategy.id), JSON.stringify(evaluation));
    const admin = await signIn(t.app, t.database, { role: 'admin' });
    const seen = await call('GET', `/api/admin/strategies/${strategy.id}`, admin);
    assert.equal(seen.json<Strategy>().status, 'live');
  });

  it('creating a strategy is a move into paper: past the hourly limit 429, for that user only, until the hour passes', async () => {
    const dave = await signIn(t.app, t.database);
    // A script's token outlives the hour the test waits (an access token does not).
    const owner = await signIn(t.app, t.database);
    const made = await call('POST', '/api/auth/tokens', owner, { name: 'bot', scopes: ['trade:read', 'trade:write'] });
    const carol = { ...owner, headers: { authorization: `Bearer ${made.json<{ token: string }>().token}` } };
    // paper_transition_per_hour is 4 by default (decision 014).
    const first = clock.now().getTime();
    for (let i = 0; i < 4; i++) await create(carol, `Grid ${i}`);
    const refused = await call('POST', '/api/strategies', carol, { name: 'Grid 4' });
    assert.equal(refused.statusCode, 429, refused.body);
    // Until the first move of the four leaves the hour: the clock runs, so a second less on a slow machine.
    const elapsedSeconds = (clock.now().getTime() - first) / 1000;
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(
      retryAfter <= 3600 && retryAfter >= Math.ceil(3600 - elapsedSeconds),
      `Retry-After ${refused.headers['retry-after']} after ${elapsedSeconds} s`,
    );
    assert.match(refused.json<{ detail: string }>().detail, /At most 4 strategy moves/);
    // Another user's hour is their own.
    await create(dave, 'Breakout');
    clock.advance(3_600_000);
    await create(carol, 'Grid 4');
    const list = (await call('GET', '/api/strategies', carol)).json<{ total: number }>();
    assert.equal(list.total, 5);
  });

  it("one user's eligible strategies do not spend another user's promotions of the hour", async () => {
    const mallory = await signIn(t.app, t.database);
    const erin = await signIn(t.app, t.database);
    const { service } = t.modules.strategies;
    const now = clock.now().getTime();
    const eligible = { paper_trades: 40, win_rate: 0.6, return_pct: 5, max_drawdown_pct: 2 };
    const seed = (owner: TestUser, name: string, daysInPaper: number) =>
      service.create({
        name,
        ownerUserId: owner.id,
        status: 'paper',
        paperStartedAt: new Date(now - daysInPaper * 86_400_000),
        metrics: eligible,
      });
    // Mallory's five have been in paper longer than Erin's one: they come first.
    const hers: { id: string }[] = [];
    for (let i = 0; i < 5; i++) hers.push(await seed(mallory, `Farm ${i}`, 30 + i));
    const erins = await seed(erin, 'Carry', 20);
    const evaluation = await service.evaluatePaper(clock.now(), 4);
    assert.ok(evaluation.promotedIds.includes(erins.id), JSON.stringify(evaluation));
    assert.equal(evaluation.promotedIds.filter((id) => hers.some((s) => s.id === id)).length, 4);
    assert.equal(evaluation.deferred, 1);
  });
});
