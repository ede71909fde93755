// One signed-in user reading a venue's public data (ticker, quotes, route) in a loop cannot spend everyone's
// venue budget (decision 740): those reads are charged to the user's share of the venue's minute, as syncs
// are (decision 200), so the greedy user gets 429 within a quarter of the minute and every other user's
// sync still gets through.
// test-runner: own process (it counts every call the venue fake receives: a timer left by an earlier file in a
// shared process could call a fake that reuses its port)
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { harness, LIMIT, metric, syncBoth, tally, trader, USER_CAP, type Harness } from './venue-budget-harness.ts';

/** ticker/24hr with one symbol weighs 2 on Binance. */
const TICKER_WEIGHT = 2;

describe("one user reading venue data cannot spend everyone's venue budget (decision 740)", () => {
  let h: Harness;
  let t: TestApp;
  let reader: TestUser;
  let others: TestUser[];

  before(async () => {
    h = await harness();
    t = await buildTestApp({ env: h.env, clock: h.clock });
    reader = await signIn(t.app, t.database);
    others = [];
    for (let i = 0; i < 5; i++) others.push(await trader(t, h.fake, 740 + i));
    // The venue's markets are loaded once (the platform's own call, weight 20), before the loop.
    const first = await t.app.inject({
      method: 'GET',
      url: '/api/exchange/markets?exchange=binance',
      headers: reader.headers,
    });
    assert.equal(first.statusCode, 200, first.body);
  });
  after(async () => {
    await t.close();
    await h.fake.close();
  });

  it('a user looping tickers is held to their share (429), and the other users still sync', async () => {
    // Four loops, as fast as answers come: more than the whole minute's budget between them.
    const rounds = Math.ceil((LIMIT * 0.8) / TICKER_WEIGHT / 4) + 10;
    const loops = [0, 1, 2, 3].map(async () => {
      const answers: LightMyRequestResponse[] = [];
      for (let i = 0; i < rounds; i++)
        answers.push(
          await t.app.inject({
            method: 'GET',
            url: '/api/exchange/ticker?exchange=binance&symbol=BTCUSDT',
            headers: reader.headers,
          }),
        );
      return answers;
    });
    const answers = (await Promise.all(loops)).flat();
    let ok = 0;
    let shareSpent = 0;
    for (const answer of answers) {
      if (answer.statusCode === 200) {
        ok += 1;
        continue;
      }
      assert.equal(answer.statusCode, 429, answer.body);
      assert.ok(Number(answer.headers['retry-after']) >= 1, 'a 429 carries Retry-After');
      assert.match(answer.json().detail, /Your share of the Binance request weight for this minute is used up/);
      shareSpent += 1;
    }
    assert.ok(ok * TICKER_WEIGHT <= USER_CAP, `the reader was admitted ${ok} tickers of weight 2, within ${USER_CAP}`);
    assert.ok(shareSpent > 0, `${shareSpent} tickers over the share`);

    const responses = (await Promise.all(others.map((user) => syncBoth(t, user)))).flat();
    assert.deepEqual(tally(responses), { ok: responses.length, refused: 0 }, 'every other user got through');
    assert.deepEqual(h.fake.rateLimitAnswers, { 429: 0, 418: 0 });
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.equal(metric(metrics, 'venue_budget_refusals_total', 'venue="binance",reason="user_share"'), shareSpent);

    // Quotes and route are the same user's reads: refused alike until the minute turns.
    const quotes = await t.app.inject({
      method: 'GET',
      url: '/api/exchange/quotes?exchange=binance&base=BTC',
      headers: reader.headers,
    });
    assert.equal(quotes.statusCode, 429, quotes.body);
    const route = await t.app.inject({
      method: 'GET',
      url: '/api/exchange/route?base=BTC&quote=USDT',
      headers: reader.headers,
    });
    assert.equal(route.statusCode, 200, route.body);
    assert.match(
      JSON.stringify(route.json().unavailable),
      /Your share of the Binance request weight for this minute is used up/,
    );

    h.clock.advance(60_000);
    const again = await t.app.inject({
      method: 'GET',
      url: '/api/exchange/ticker?exchange=binance&symbol=BTCUSDT',
      headers: reader.headers,
    });
    assert.equal(again.statusCode, 200, 'a new minute gives the user a new share');
  });
});
