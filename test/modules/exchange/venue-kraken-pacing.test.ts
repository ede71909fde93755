// A user's share of Kraken's minute is spread, not sent at once (decision 1040): Kraken counts public calls
// per IP on a counter decaying about one call a second, so twelve tickers at once would draw its 429, and
// that 429 pauses Kraken for every user (decision 207). And `EXCHANGE_RATE_LIMIT=false` lifts the pacing
// only for a venue at a loopback address, never for the venue itself (decision 1041).
// test-runner: own process (it counts every call the Kraken fake receives: a timer left by an earlier file in a
// shared process could call a fake that reuses its port)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IP_CALLS_PER_MINUTE } from '../../../src/modules/exchange/adapters/venue-ip-limits.ts';
import { KRAKEN_STARTER } from '../../../src/modules/exchange/adapters/venue-key-limits.ts';
import { venueProfile } from '../../../src/modules/exchange/adapters/venue-profiles.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { startKrakenFake, type KrakenFake } from '../../fakes/kraken.ts';
import { closedPort } from '../../helpers/ports.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { metric, START } from './venue-budget-harness.ts';

/** One user's share of the budget's minute with the defaults: 25 % of 80 % of Kraken's 60. */
const USER_CAP = Math.floor((Math.floor(IP_CALLS_PER_MINUTE.kraken * 0.8) * 25) / 100);

describe("a user's share of Kraken's minute is spread over it (decision 1040)", () => {
  let kraken: KrakenFake;
  let t: TestApp;
  let reader: TestUser;
  let other: TestUser;

  before(async () => {
    kraken = await startKrakenFake();
    // Kraken's public counter: two calls at once are its most, one a second drains.
    Object.assign(kraken.publicCounter, { max: 2, decayPerSecond: 1 });
    const closed = `http://127.0.0.1:${await closedPort()}`;
    t = await buildTestApp({
      clock: fixedClock(START),
      env: {
        BINANCE_API_URL: closed,
        BINANCEUS_API_URL: closed,
        EXCHANGE_API_URLS: JSON.stringify({ kraken: kraken.url, okx: closed, coinbase: closed, bybit: closed }),
        // Venue pacing as in production (the default).
        EXCHANGE_RATE_LIMIT: 'true',
        // Long enough for the user's whole share to wait its turn rather than be refused: what is tested
        // is what reaches Kraken, not the budget's longest wait.
        VENUE_BUDGET_MAX_WAIT_MS: '30000',
        EXCHANGE_TIMEOUT_MS: '30000',
        BINANCE_WS_URL: `ws://127.0.0.1:${await closedPort()}`,
      },
    });
    reader = await signIn(t.app, t.database);
    other = await signIn(t.app, t.database);
  });
  after(async () => {
    await t.close();
    await kraken.close();
  });

  const ticker = (user: TestUser) =>
    t.app.inject({ method: 'GET', url: '/api/exchange/ticker?exchange=kraken&symbol=BTCUSDT', headers: user.headers });

  it('twelve tickers at once go to Kraken one after another: Kraken never answers its limit, and the venue is not paused', async () => {
    assert.equal(USER_CAP, 12);
    // The venue's markets are the platform's own load, before the burst.
    const first = await ticker(other);
    assert.equal(first.statusCode, 200, first.body);

    const answers = await Promise.all(Array.from({ length: USER_CAP }, () => ticker(reader)));
    for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(kraken.stats.publicLimitAnswers, 0, 'Kraken never answered its per-IP limit');

    // Kraken was never paused: another user's ticker right after is served, and no breaker opened.
    const after = await ticker(other);
    assert.equal(after.statusCode, 200, after.body);
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.equal(metric(metrics, 'venue_breaker_trips_total', 'venue="kraken",status="429"') ?? 0, 0);
    assert.ok((metric(metrics, 'venue_budget_waits_total', 'venue="kraken"') ?? 0) >= USER_CAP - 2, 'the calls waited');
  });
});

describe('EXCHANGE_RATE_LIMIT=false lifts the pacing only at a loopback address (decision 1041)', () => {
  const profile = (apiUrls: Record<string, string>) =>
    venueProfile('kraken', { krakenCounter: KRAKEN_STARTER, rateLimit: false, apiUrls });

  it('Kraken at its own address keeps its minute and its short limit', () => {
    for (const apiUrls of [
      {} as Record<string, string>,
      { kraken: 'https://api.kraken.com' },
      { kraken: 'http://10.0.0.8:8080' },
    ]) {
      const weights = profile(apiUrls).weights;
      assert.equal(weights?.defaultLimit, IP_CALLS_PER_MINUTE.kraken, JSON.stringify(apiUrls));
      assert.deepEqual(weights?.burst, { max: 1, perSecond: 1 });
    }
  });

  it('Kraken at a loopback address (its fake) is not paced, as the tests and benches ask', () => {
    for (const url of ['http://127.0.0.1:9', 'http://localhost:9', 'http://[::1]:9'])
      assert.equal(profile({ kraken: url }).weights, undefined, url);
  });
});
