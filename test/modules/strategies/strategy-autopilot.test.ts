// strategy-autopilot/evaluate: matured intel calls scored from the Binance fake's candles, paper
// strategies promoted within the hourly transition limit, and the admin read of strategies.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { outcomePct } from '../../../src/modules/strategies/intel-outcome.domain.ts';
import { strategyAutopilot } from '../../../src/modules/strategies/strategy-autopilot.job.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { rowsOf } from '../../../src/platform/db/database.ts';
import { startBinanceFake, type BinanceFake } from '../../fakes/binance.ts';
import { klinesFor } from '../../fakes/binance-market-data.ts';
import { buildTestApp, resetDatabase, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { ago, DAY, HOUR, JOB_SECRET, NOW, runJob } from '../jobs/jobs-fixtures.ts';

const JOB = 'strategy-autopilot/evaluate';
const GOOD = { paper_trades: 42, win_rate: 0.61, return_pct: 7.5, max_drawdown_pct: 4.2 };

describe('strategy-autopilot/evaluate', () => {
  const clock = fixedClock(NOW);
  let binance: BinanceFake;
  let t: TestApp;
  let admin: TestUser;

  before(async () => {
    binance = await startBinanceFake();
    t = await buildTestApp({
      clock,
      env: {
        SCHEDULED_JOB_SECRET: JOB_SECRET,
        BINANCE_API_URL: binance.url,
        MARKET_UPSTREAM_TIMEOUT_MS: '1000',
        JOB_TRIGGER_WINDOW_SECONDS: '0',
        // Promotions to live need a server that trades live (decision 1110); the off case has its own test.
        LIVE_TRADING: 'true',
      },
    });
    // (No trigger window: tests run the job several times in a row.)
  });
  beforeEach(async () => {
    clock.set(NOW);
    await resetDatabase(t.database);
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
    await binance.close();
  });

  /** Runs the job to its end; answers its result (`expected`: the run's status). */
  const run = async (expected = 'succeeded') => {
    const run = await runJob(t.app, JOB);
    assert.equal(run.status, expected, JSON.stringify(run));
    return run.result;
  };
  const ingest = async (fields: Record<string, unknown>): Promise<string> => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/admin/command-center/intel',
      headers: admin.headers,
      payload: { event_type: 'whale_transfer', asset: 'BTC', source: 'feed-a', strength: 0.7, ...fields },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().id;
  };
  const intelEvents = async () =>
    (
      await t.app.inject({ method: 'GET', url: '/api/admin/command-center/intel?limit=500', headers: admin.headers })
    ).json() as {
      events: { id: string; outcome_pct: number | null }[];
      summary: Record<string, { scored: number; correct: number; precision: number }>;
    };
  /** The fake's close of the 1-minute candle that closed at `t` (a whole minute), as the job reads it. */
  const closeAt = (symbol: string, at: Date) => {
    const s = binance.symbols.find((x) => x.symbol === symbol)!;
    const open = at.getTime() - 60_000;
    return Number(klinesFor(s, { interval: '1m', startTime: open, endTime: open, limit: 1, now: Date.now() })![0]![4]);
  };

  it('says it evaluated none when there is nothing to judge', async () => {
    assert.deepEqual(await run(), {
      intel: { matured: 0, scored: 0, market_failures: 0, unscorable: 0 },
      strategies: {
        evaluated: 0,
        eligible: 0,
        promoted: 0,
        deferred: 0,
        held: 0,
        limit_per_hour: 4,
        transitions_last_hour: 0,
        promoted_ids: [],
        note: 'no strategies in paper trading; evaluated none',
      },
    });
  });

  it('scores matured intel events from the candles at detection and at the horizon, once', async () => {
    const btc = await ingest({ symbol: 'BTCUSDT', direction: 'bullish', detected_at: ago(26 * HOUR).toISOString() });
    const eth = await ingest({
      asset: 'ETH',
      symbol: 'ETH/USDT',
      direction: 'bearish',
      detected_at: ago(3 * HOUR).toISOString(),
      expires_at: ago(HOUR).toISOString(),
    });
    const live = await ingest({ symbol: 'SOLUSDT', direction: 'long', detected_at: ago(HOUR).toISOString() });
    const unknown = await ingest({ symbol: 'NOPEUSDT', direction: 'up', detected_at: ago(2 * DAY).toISOString() });

    assert.deepEqual((await run()).intel, { matured: 3, scored: 2, market_failures: 0, unscorable: 1 });
    const { events, summary } = await intelEvents();
    const outcome = (id: string) => events.find((e) => e.id === id)!.outcome_pct;
    assert.equal(outcome(btc), outcomePct(closeAt('BTCUSDT', ago(26 * HOUR)), closeAt('BTCUSDT', ago(2 * HOUR))));
    assert.equal(outcome(eth), outcomePct(closeAt('ETHUSDT', ago(3 * HOUR)), closeAt('ETHUSDT', ago(HOUR))));
    assert.notEqual(outcome(btc), 0);
    assert.equal(outcome(live), null);
    assert.equal(outcome(unknown), null);
    assert.equal(summary['feed-a']!.scored, 2);

    // A second run scores nothing again; only the event the venue cannot price is looked at.
    assert.deepEqual((await run()).intel, { matured: 1, scored: 0, market_failures: 0, unscorable: 1 });
    assert.equal((await intelEvents()).events.find((e) => e.id === btc)!.outcome_pct, outcome(btc));
  });

  it('prices calls on one market close in time with one candle request, each scored as if alone', async () => {
    const detected = [30, 29.5, 29, 28.25].map((h) => ago(h * HOUR));
    const ids: string[] = [];
    for (const at of detected) {
      ids.push(await ingest({ symbol: 'BTCUSDT', direction: 'up', detected_at: at.toISOString() }));
    }
    const before = binance.countRequests('/api/v3/klines');
    assert.deepEqual((await run()).intel, { matured: 4, scored: 4, market_failures: 0, unscorable: 0 });
    // The detections lie within 1,000 minutes, and so do the horizons: two requests, not eight.
    assert.equal(binance.countRequests('/api/v3/klines') - before, 2);
    const { events } = await intelEvents();
    detected.forEach((at, i) => {
      const scored = events.find((e) => e.id === ids[i])!.outcome_pct;
      assert.equal(scored, outcomePct(closeAt('BTCUSDT', at), closeAt('BTCUSDT', new Date(at.getTime() + DAY))));
    });
    const audited = await t.database.db.execute(
      sql`SELECT target_id, details, actor_type, action FROM audit_log WHERE action = 'command_center.intel.score'`,
    );
    assert.deepEqual(
      rowsOf<{ target_id: string; details: { outcome_pct: number } }>(audited)
        .map((r) => [r.target_id, r.details.outcome_pct])
        .sort(),
      ids.map((id) => [id, events.find((e) => e.id === id)!.outcome_pct]).sort(),
    );
  });

  it('leaves an event unscored when the venue fails, and scores it on the next run', async () => {
    const id = await ingest({ symbol: 'BNBUSDT', direction: 'up', detected_at: ago(30 * HOUR).toISOString() });
    binance.fail(503, { code: -1000, msg: 'Service unavailable' }, { times: 2, pathPrefix: '/api/v3/klines' });
    // Every event it tried failed for the market: the run is not a success (decision 126).
    assert.deepEqual((await run('failed')).intel, { matured: 1, scored: 0, market_failures: 1, unscorable: 0 });
    const health = (await t.app.inject({ method: 'GET', url: '/api/scheduled/health' })).json();
    const last = health.jobs.find((j: { name: string }) => j.name === JOB).last_run;
    assert.deepEqual([last.status, last.units], ['failed', { total: 1, succeeded: 0, failed: 1 }]);
    const failed = (await intelEvents()).events.find((e) => e.id === id) as unknown as {
      outcome_pct: null;
      scoring_error: string;
      scoring_attempts: number;
    };
    assert.equal(failed.outcome_pct, null);
    assert.equal(failed.scoring_error, 'the market data source failed');
    assert.equal(failed.scoring_attempts, 0, 'a market failure does not count towards giving up');
    assert.deepEqual((await run()).intel, { matured: 1, scored: 1, market_failures: 0, unscorable: 0 });
  });

  it(
    'records a failed attempt, tries events never tried first, so unscorable ones piling up past ' +
      'a batch never block a newer one',
    async () => {
      // The job as its module binds it, over the real modules, with a batch of 2 instead of 200.
      const deps = {
        intel: t.modules.commandCenter.intel,
        candles: t.modules.market.candles,
        strategies: t.modules.strategies.service,
        platformLimits: t.modules.admin.getPlatformLimits,
        liveTrading: true,
        logger: t.platform.logger,
        intelBatch: 2,
      };
      const stuck = [
        await ingest({ symbol: 'NOPEUSDT', direction: 'up', detected_at: ago(5 * DAY).toISOString() }),
        await ingest({ symbol: 'NOPEUSDT', direction: 'up', detected_at: ago(4 * DAY).toISOString() }),
        await ingest({ symbol: 'NOPEUSDT', direction: 'up', detected_at: ago(3 * DAY).toISOString() }),
      ];
      const btc = await ingest({ symbol: 'BTCUSDT', direction: 'bullish', detected_at: ago(26 * HOUR).toISOString() });
      const event = async (id: string) =>
        (await intelEvents()).events.find((e) => e.id === id) as unknown as {
          outcome_pct: number | null;
          scoring_error: string | null;
          scoring_attempts: number;
        };

      assert.deepEqual((await strategyAutopilot(deps, NOW)).intel, {
        matured: 2,
        scored: 0,
        market_failures: 0,
        unscorable: 2,
      });
      assert.equal((await event(stuck[0]!)).scoring_attempts, 1);
      assert.match(String((await event(stuck[0]!)).scoring_error), /NOPEUSDT/);
      assert.equal((await event(btc)).scoring_error, null);

      // The events tried before wait behind the ones never tried: the newer, scorable one gets its outcome.
      assert.deepEqual((await strategyAutopilot(deps, NOW)).intel, {
        matured: 2,
        scored: 1,
        market_failures: 0,
        unscorable: 1,
      });
      assert.equal(
        (await event(btc)).outcome_pct,
        outcomePct(closeAt('BTCUSDT', ago(26 * HOUR)), closeAt('BTCUSDT', ago(2 * HOUR))),
      );

      // The unscorable ones are tried in turn and given up after 3 runs each; then nothing is looked at.
      const totals = { matured: 0, unscorable: 0 };
      for (let i = 0; i < 5; i += 1) {
        const { intel } = await strategyAutopilot(deps, NOW);
        totals.matured += intel.matured;
        totals.unscorable += intel.unscorable;
        assert.equal(intel.scored, 0);
      }
      assert.deepEqual(totals, { matured: 6, unscorable: 6 });
      for (const id of stuck) {
        const row = await event(id);
        assert.equal(row.scoring_attempts, 3);
        assert.equal(row.outcome_pct, null);
        assert.match(String(row.scoring_error), /NOPEUSDT/);
      }
      assert.deepEqual((await strategyAutopilot(deps, NOW)).intel, {
        matured: 0,
        scored: 0,
        market_failures: 0,
        unscorable: 0,
      });
    },
  );

  it(
    'promotes paper strategies that meet the rules, oldest ' +
      'first, never more per owner and hour than the platform limit',
    async () => {
      const strategies = t.modules.strategies.service;
      const limits = await t.app.inject({
        method: 'PATCH',
        url: '/api/admin/platform-limits',
        headers: admin.headers,
        payload: { paper_transition_per_hour: 1 },
      });
      assert.equal(limits.statusCode, 200, limits.body);
      // The limit is each owner's (decision 781): these two are the admin's.
      const oldest = await strategies.create({
        name: 'mean reversion',
        status: 'paper',
        paperStartedAt: ago(30 * DAY),
        metrics: GOOD,
        ownerUserId: admin.id,
      });
      const younger = await strategies.create({
        name: 'breakout',
        status: 'paper',
        paperStartedAt: ago(20 * DAY),
        metrics: GOOD,
        ownerUserId: admin.id,
      });
      const weak = await strategies.create({
        name: 'momentum',
        status: 'paper',
        paperStartedAt: ago(20 * DAY),
        metrics: { ...GOOD, paper_trades: 10 },
      });
      await strategies.create({ name: 'idea', status: 'draft' });
      await strategies.create({ name: 'veteran', status: 'live', paperStartedAt: ago(90 * DAY), metrics: GOOD });

      const first = (await run()).strategies;
      assert.deepEqual(first, {
        evaluated: 3,
        eligible: 2,
        promoted: 1,
        deferred: 1,
        held: 1,
        limit_per_hour: 1,
        transitions_last_hour: 0,
        promoted_ids: [oldest.id],
      });

      // Within the hour: the limit is used up, nothing moves.
      clock.set(new Date(NOW.getTime() + 30 * 60_000));
      const second = (await run()).strategies;
      assert.deepEqual(second, {
        evaluated: 2,
        eligible: 1,
        promoted: 0,
        deferred: 1,
        held: 1,
        limit_per_hour: 1,
        transitions_last_hour: 1,
        promoted_ids: [],
      });

      clock.set(new Date(NOW.getTime() + HOUR + 1));
      assert.deepEqual((await run()).strategies.promoted_ids, [younger.id]);

      clock.set(NOW); // the admin's access token was issued at NOW
      const get = (url: string, headers: Record<string, string> = admin.headers) =>
        t.app.inject({ method: 'GET', url, headers });
      const list = await get('/api/admin/strategies?status=live&limit=1');
      assert.equal(list.statusCode, 200, list.body);
      assert.equal(list.json().total, 3);
      assert.equal(list.json().strategies.length, 1);
      const detail = (await get(`/api/admin/strategies/${oldest.id}`)).json();
      assert.equal(detail.status, 'live');
      assert.equal(detail.live_started_at, NOW.toISOString());
      assert.equal(detail.promotion, null);
      assert.deepEqual(
        detail.transitions.map((x: { from: string; to: string; at: string }) => [x.from, x.to, x.at]),
        [['paper', 'live', NOW.toISOString()]],
      );
      assert.match(detail.transitions[0].reason, /^autopilot: paper rules met/);
      const held = (await get(`/api/admin/strategies/${weak.id}`)).json();
      assert.deepEqual(held.promotion, { eligible: false, reasons: ['10 of 30 paper trades'] });
      assert.deepEqual(held.metrics, { ...GOOD, paper_trades: 10 });
    },
  );

  it('guards the admin strategy routes and answers 404 and 422 for bad ids', async () => {
    const user = await signIn(t.app, t.database);
    const get = (url: string, headers: Record<string, string> = admin.headers) =>
      t.app.inject({ method: 'GET', url, headers });
    const empty = await get('/api/admin/strategies');
    assert.deepEqual(empty.json(), { strategies: [], total: 0, page: 1, limit: 20 });
    assert.deepEqual((await get('/api/admin/strategies?page=1000000000&limit=100')).json(), {
      strategies: [],
      total: 0,
      page: 1_000_000_000,
      limit: 100,
    });
    const huge = await get('/api/admin/strategies?page=92233720368547758');
    assert.equal(huge.statusCode, 422, 'a page beyond the bound is refused, not echoed rounded');
    assert.deepEqual(huge.json().detail[0].loc, ['query', 'page']);
    assert.equal((await get(`/api/admin/strategies/${randomUUID()}`)).statusCode, 404);
    const bad = await get('/api/admin/strategies/not-a-uuid');
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json().detail[0].loc, ['path', 'strategy_id']);
    assert.deepEqual((await get('/api/admin/strategies?limit=101')).json().detail[0].loc, ['query', 'limit']);
    assert.equal((await get('/api/admin/strategies', {})).statusCode, 401);
    assert.equal((await get('/api/admin/strategies', user.headers)).statusCode, 403);
    assert.equal((await get(`/api/admin/strategies/${randomUUID()}`, user.headers)).statusCode, 403);
  });
});

describe('strategy-autopilot/evaluate on a server with LIVE_TRADING off (the default)', () => {
  const clock = fixedClock(NOW);
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ clock, env: { SCHEDULED_JOB_SECRET: JOB_SECRET, JOB_TRIGGER_WINDOW_SECONDS: '0' } });
  });
  after(async () => {
    await t.close();
  });

  it('judges the paper strategies and promotes none: they stay in paper, counted as deferred (decision 1110)', async () => {
    const strategies = t.modules.strategies.service;
    const ready = await strategies.create({
      name: 'mean reversion',
      status: 'paper',
      paperStartedAt: ago(30 * DAY),
      metrics: GOOD,
    });
    await strategies.create({
      name: 'momentum',
      status: 'paper',
      paperStartedAt: ago(20 * DAY),
      metrics: { ...GOOD, paper_trades: 10 },
    });
    const run = await runJob(t.app, JOB);
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.deepEqual(run.result.strategies, {
      evaluated: 2,
      eligible: 1,
      promoted: 0,
      deferred: 1,
      held: 1,
      limit_per_hour: 4,
      transitions_last_hour: 0,
      promoted_ids: [],
      note: 'LIVE_TRADING is off on this server: strategies meeting the rules stay in paper trading',
    });
    const [row] = await t.database.rows<{ status: string }>(sql`SELECT status FROM strategies WHERE id = ${ready.id}`);
    assert.equal(row!.status, 'paper');
  });
});
