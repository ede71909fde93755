// One signed-in user reading Kraken's or OKX's public data in a loop cannot spend everyone's minute at that
// venue (decision 980): their calls weigh one each against the venue's documented per-IP minute, so the
// user's share of it (decision 200) holds there as on Binance. The greedy reader gets 429 within a quarter
// of the budget, nothing more reaches the venue for them, and another user's reads still go through.
// test-runner: own process (it counts every call the venue fakes receive: a timer left by an earlier file in a
// shared process could call a fake that reuses its port)
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { after, before, describe, it } from 'node:test';
import { IP_CALLS_PER_MINUTE } from '../../../src/modules/exchange/adapters/venue-ip-limits.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { startKrakenFake, type KrakenFake } from '../../fakes/kraken.ts';
import { startOkxFake, type OkxFake } from '../../fakes/okx.ts';
import { closedPort } from '../../helpers/ports.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { metric, START } from './venue-budget-harness.ts';

/** One user's part of the budget's minute: small here (10 %), so that OKX's 2-second window paces few calls. */
const USER_SHARE_PERCENT = 10;
/** The budget's part of the venue's minute (VENUE_WEIGHT_SHARE_PERCENT 80), and one user's part of that. */
const userCap = (venue: 'kraken' | 'okx') =>
  Math.floor((Math.floor(IP_CALLS_PER_MINUTE[venue] * 0.8) * USER_SHARE_PERCENT) / 100);

describe("one user's public reads cannot spend everyone's Kraken or OKX minute (decision 980)", () => {
  let kraken: KrakenFake;
  let okx: OkxFake;
  let t: TestApp;
  let clock: ReturnType<typeof fixedClock>;
  let reader: TestUser;
  let other: TestUser;
  let third: TestUser;

  before(async () => {
    kraken = await startKrakenFake();
    okx = await startOkxFake();
    clock = fixedClock(START);
    const closed = `http://127.0.0.1:${await closedPort()}`;
    t = await buildTestApp({
      clock,
      env: {
        BINANCE_API_URL: closed,
        BINANCEUS_API_URL: closed,
        EXCHANGE_API_URLS: JSON.stringify({ kraken: kraken.url, okx: okx.url, coinbase: closed, bybit: closed }),
        // Venue pacing as in production (the default): the venues' per-IP minutes are counted.
        EXCHANGE_RATE_LIMIT: 'true',
        VENUE_USER_SHARE_PERCENT: String(USER_SHARE_PERCENT),
        // The venues' short windows pace the calls within a share (decisions 980, 1040): they wait their
        // turn rather than be refused, so that what is counted here is the share alone.
        VENUE_BUDGET_MAX_WAIT_MS: '30000',
        EXCHANGE_TIMEOUT_MS: '30000',
        BINANCE_WS_URL: `ws://127.0.0.1:${await closedPort()}`,
      },
    });
    reader = await signIn(t.app, t.database);
    other = await signIn(t.app, t.database);
    third = await signIn(t.app, t.database);
  });
  after(async () => {
    await t.close();
    await kraken.close();
    await okx.close();
  });

  const ticker = (venue: string, user: TestUser) =>
    t.app.inject({
      method: 'GET',
      url: `/api/exchange/ticker?exchange=${venue}&symbol=BTCUSDT`,
      headers: user.headers,
    });

  for (const venue of ['kraken', 'okx'] as const) {
    it(`${venue}: a user looping tickers is held to their share (429), and another user's reads go through`, async () => {
      const fake = venue === 'kraken' ? kraken : okx;
      const cap = userCap(venue);
      // The venue's markets are the platform's own load, before the loop.
      const first = await ticker(venue, other);
      assert.equal(first.statusCode, 200, first.body);
      const sentBefore = fake.requests.length;

      // Four loops, as fast as answers come: more than the user's share between them. Meanwhile another
      // user reads too.
      const rounds = Math.ceil(cap / 4) + 5;
      const loop = async (user: TestUser, times: number) => {
        const answers: LightMyRequestResponse[] = [];
        for (let i = 0; i < times; i++) answers.push(await ticker(venue, user));
        return answers;
      };
      const [theirs, ...loops] = await Promise.all([loop(other, 2), ...[0, 1, 2, 3].map(() => loop(reader, rounds))]);
      for (const answer of theirs!) assert.equal(answer.statusCode, 200, answer.body);
      const answers = loops.flat();
      let ok = 0;
      let shareSpent = 0;
      for (const answer of answers) {
        if (answer.statusCode === 200) {
          ok += 1;
          continue;
        }
        assert.equal(answer.statusCode, 429, answer.body);
        assert.ok(Number(answer.headers['retry-after']) >= 1, 'a 429 carries Retry-After');
        assert.match(answer.json().detail, new RegExp(`Your share of the ${venue} request weight for this minute`));
        shareSpent += 1;
      }
      assert.ok(ok <= cap, `the reader was admitted ${ok} tickers, within ${cap}`);
      assert.ok(shareSpent >= answers.length - cap, `${shareSpent} of ${answers.length} tickers over the share`);
      assert.equal(fake.requests.length - sentBefore, ok + theirs!.length, 'a refused read sent nothing to the venue');
      assert.equal(fake.stats.limitAnswers, 0, 'the venue never answered its limit');

      // The reader's share spent, a third user's reads still go through.
      const again = await ticker(venue, third);
      assert.equal(again.statusCode, 200, again.body);
      const quotes = await t.app.inject({
        method: 'GET',
        url: `/api/exchange/quotes?exchange=${venue}&base=BTC`,
        headers: third.headers,
      });
      assert.equal(quotes.statusCode, 200, quotes.body);
      const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.equal(metric(metrics, 'venue_budget_refusals_total', `venue="${venue}",reason="user_share"`), shareSpent);
    });
  }

  it('the reader is served again when the minute turns', async () => {
    clock.advance(60_000);
    const again = await ticker('kraken', reader);
    assert.equal(again.statusCode, 200, again.body);
  });
});
