// An anonymous caller making up cache keys (a new ohlc-range window each time) cannot spend everyone's venue
// budget (decision 741): the loads of keys a caller chooses are admitted only within half of the venue's
// minute, then answer 503 with Retry-After, and users' syncs still get the rest.
// test-runner: own process (it counts every call the venue fake receives: a timer left by an earlier file in a
// shared process could call a fake that reuses its port)
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { harness, LIMIT, START, syncBoth, tally, trader, type Harness } from '../exchange/venue-budget-harness.ts';

/** A kline call weighs 2 on Binance at any size. */
const KLINES_WEIGHT = 2;
const CAP = LIMIT * 0.8;

describe("an anonymous caller multiplying market cache keys cannot spend everyone's venue budget (decision 741)", () => {
  let h: Harness;
  let t: TestApp;
  let users: TestUser[];

  before(async () => {
    h = await harness();
    t = await buildTestApp({ env: h.env, clock: h.clock });
    users = [];
    for (let i = 0; i < 5; i++) users.push(await trader(t, h.fake, 741 + i));
  });
  after(async () => {
    await t.close();
    await h.fake.close();
  });

  it('new ohlc-range windows are refused (503) within half of the minute, and users still sync', async () => {
    const end = new Date(START.getTime() - 3_600_000).toISOString();
    const base = START.getTime() - 2 * 3_600_000;
    // Four loops, each asking for a window no one asked before: more than the whole minute between them.
    const rounds = Math.ceil(CAP / KLINES_WEIGHT / 4) + 10;
    const loops = [0, 1, 2, 3].map(async (loop) => {
      const answers: LightMyRequestResponse[] = [];
      for (let i = 0; i < rounds; i++) {
        const start = new Date(base + loop * rounds + i).toISOString();
        answers.push(
          await t.app.inject({
            method: 'GET',
            url: `/api/v1/market/ohlc-range?symbol=BTCUSDT&interval=1m&limit=10&start=${start}&end=${end}`,
          }),
        );
      }
      return answers;
    });
    const answers = (await Promise.all(loops)).flat();
    let ok = 0;
    let refused = 0;
    for (const answer of answers) {
      if (answer.statusCode === 200) {
        ok += 1;
        continue;
      }
      assert.equal(answer.statusCode, 503, answer.body);
      assert.ok(Number(answer.headers['retry-after']) >= 1, 'a 503 carries Retry-After');
      assert.match(
        answer.json().detail,
        new RegExp(`Binance request weight budget for this minute is used up \\(\\d+ of ${CAP / 2}\\)`),
      );
      refused += 1;
    }
    assert.ok(ok * KLINES_WEIGHT <= CAP / 2, `admitted ${ok} windows of weight 2, within half of ${CAP}`);
    assert.ok(refused > 0, `${refused} windows refused`);

    const responses = (await Promise.all(users.map((user) => syncBoth(t, user)))).flat();
    assert.deepEqual(tally(responses), { ok: responses.length, refused: 0 }, 'every user got through');
    assert.deepEqual(h.fake.rateLimitAnswers, { 429: 0, 418: 0 });

    // A window asked before is still answered from the cache.
    const cached = await t.app.inject({
      method: 'GET',
      url: `/api/v1/market/ohlc-range?symbol=BTCUSDT&interval=1m&limit=10&start=${new Date(base).toISOString()}&end=${end}`,
    });
    assert.equal(cached.statusCode, 200, cached.body);
  });
});
