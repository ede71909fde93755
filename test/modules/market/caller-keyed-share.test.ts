// Anonymous callers making up cache keys (a new ohlc-range window each time) cannot spend everyone's venue
// budget (decision 741): the loads of keys a caller chooses are admitted only within half of the venue's
// minute, then answer 503 with Retry-After, and users' syncs still get the rest; and one address cannot take
// the whole half either: its loads stop at its share (429), while another address's go on (decision 1190).
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
/** VENUE_USER_SHARE_PERCENT's default: one caller's part of the cap (decision 1190). */
const USER_SHARE = 0.25;

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
    // Five loops, each asking for a window no one asked before: more than the whole minute between them.
    const rounds = Math.ceil(CAP / KLINES_WEIGHT / 5) + 10;
    const loops = [0, 1, 2, 3, 4].map(async (loop) => {
      const answers: LightMyRequestResponse[] = [];
      for (let i = 0; i < rounds; i++) {
        const start = new Date(base + loop * rounds + i).toISOString();
        answers.push(
          await t.app.inject({
            method: 'GET',
            url: `/api/v1/market/ohlc-range?symbol=BTCUSDT&interval=1m&limit=10&start=${start}&end=${end}`,
            // Five addresses: each within its own share, together past the half (decision 1190).
            remoteAddress: `198.51.100.${loop + 1}`,
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
      assert.ok(Number(answer.headers['retry-after']) >= 1, 'a refusal carries Retry-After');
      // A loop far ahead of the others may meet its own share first (429); the half is what holds them all.
      if (answer.statusCode === 429) continue;
      assert.equal(answer.statusCode, 503, answer.body);
      assert.match(
        answer.json().detail,
        new RegExp(`Binance request weight budget for this minute is used up \\(\\d+ of ${CAP / 2}\\)`),
      );
      refused += 1;
    }
    assert.ok(ok * KLINES_WEIGHT <= CAP / 2, `admitted ${ok} windows of weight 2, within half of ${CAP}`);
    assert.ok(refused > 0, `${refused} windows refused by the half`);

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

  it("one address's new windows stop at its share (429); another address's still load, and users sync", async () => {
    // The previous test's minute is spent: start in the next one.
    h.clock.advance(60_000);
    const end = new Date(START.getTime() - 3_600_000).toISOString();
    const base = START.getTime() - 5 * 3_600_000;
    const window = (i: number, remoteAddress: string) =>
      t.app.inject({
        method: 'GET',
        url: `/api/v1/market/ohlc-range?symbol=BTCUSDT&interval=1m&limit=10&start=${new Date(base + i).toISOString()}&end=${end}`,
        remoteAddress,
      });
    const share = CAP * USER_SHARE;
    let ok = 0;
    let held: LightMyRequestResponse | undefined;
    for (let i = 0; i < share / KLINES_WEIGHT + 10 && !held; i++) {
      const answer = await window(i, '203.0.113.7');
      if (answer.statusCode === 200) ok += 1;
      else held = answer;
    }
    assert.ok(held, 'the address was held');
    assert.equal(held.statusCode, 429, held.body);
    assert.ok(Number(held.headers['retry-after']) >= 1, 'a 429 carries Retry-After');
    assert.match(held.json().detail, /^Your share of the Binance request weight for this minute is used up/);
    assert.equal(ok, share / KLINES_WEIGHT, `the address loaded its share: ${ok} windows of weight 2`);

    // Another address still loads windows no one asked before, and users still sync.
    const other = await window(100_000, '203.0.113.8');
    assert.equal(other.statusCode, 200, other.body);
    const responses = (await Promise.all(users.map((user) => syncBoth(t, user)))).flat();
    assert.deepEqual(tally(responses), { ok: responses.length, refused: 0 }, 'every user got through');
    // A window the held address loaded before is still answered from the cache.
    assert.equal((await window(0, '203.0.113.7')).statusCode, 200);

    // The held address and another ask for the same new window at once: the held one's load is refused by
    // its share, and the other, who joined that load, loads the window on its own share (decision 1200).
    const klines = h.fake.countRequests('/api/v3/klines');
    const [mine, theirs] = await Promise.all([window(200_000, '203.0.113.7'), window(200_000, '203.0.113.9')]);
    assert.equal(mine.statusCode, 429, mine.body);
    assert.equal(theirs.statusCode, 200, theirs.body);
    assert.equal(h.fake.countRequests('/api/v3/klines') - klines, 1, 'the window was loaded once');
  });
});
