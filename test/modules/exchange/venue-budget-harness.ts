// What the venue budget's tests share: a Binance fake that counts weight per IP on a clock that stands
// still, users with a credential on it, a balance sync then a trade sync as a user's client does, and
// how their answers are told apart (decisions 110 and 200).
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { fixedClock } from '../../../src/platform/clock.ts';
import { startBinanceFake, type BinanceFake } from '../../fakes/binance.ts';
import { binanceTrade } from '../../fakes/binance-shapes.ts';
import { closedPort } from '../../helpers/ports.ts';
import { signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { OTHER_VENUES } from './venue-fakes.ts';

/** A second into a minute, so the weight minute never turns over during a test. */
export const START = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
/** Small, so that sixty users' syncs (40 weight each) need several times what one minute allows. */
export const LIMIT = 1200;
export const USERS = 60;

export interface Harness {
  fake: BinanceFake;
  clock: ReturnType<typeof fixedClock>;
  env: Record<string, string>;
}

export async function harness(): Promise<Harness> {
  const clock = fixedClock(START);
  const fake = await startBinanceFake({ weightLimit: LIMIT, weightClock: () => clock.now().getTime() });
  const closed = `http://127.0.0.1:${await closedPort()}`;
  return {
    fake,
    clock,
    env: {
      BINANCE_API_URL: fake.url,
      BINANCEUS_API_URL: closed,
      EXCHANGE_API_URLS: JSON.stringify(Object.fromEntries(OTHER_VENUES.map((venue) => [venue, closed]))),
      EXCHANGE_RATE_LIMIT: 'false',
      // Generous: sixty concurrent syncs on a busy machine must not time out; timeouts are not what is tested.
      EXCHANGE_TIMEOUT_MS: '30000',
      BINANCE_WS_URL: `ws://127.0.0.1:${await closedPort()}`,
    },
  };
}

/** A user with a credential on the fake: a BTC holding and a few BTCUSDT trades. */
export async function trader(t: TestApp, fake: BinanceFake, n: number): Promise<TestUser> {
  const user = await signIn(t.app, t.database);
  const suffix = `${process.pid}x${n}`.padStart(10, '0');
  const account = fake.addAccount({
    apiKey: `budgetKey${suffix}AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghijkl`,
    secret: `budgetSecret${suffix}ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210zyxwvu`,
    balances: [{ asset: 'BTC', free: '0.5', locked: '0' }],
    trades: {
      BTCUSDT: [1, 2, 3].map((i) =>
        binanceTrade({
          symbol: 'BTCUSDT',
          id: n * 10 + i,
          price: '65000',
          qty: '0.01',
          isBuyer: true,
          time: START.getTime() - i * 3_600_000,
        }),
      ),
    },
  });
  await storeVenueCredential(t.app, user, 'binance', account);
  return user;
}

/** A balance sync then a trade sync (weight 20 each on Binance), as a user's client would. */
export async function syncBoth(t: TestApp, user: TestUser): Promise<LightMyRequestResponse[]> {
  const balance = await t.app.inject({
    method: 'POST',
    url: '/api/exchange/balance/sync?exchange=binance',
    headers: user.headers,
  });
  const trades = await t.app.inject({
    method: 'POST',
    url: '/api/exchange/trades/sync?exchange=binance&symbol=BTCUSDT',
    headers: user.headers,
  });
  return [balance, trades];
}

/** Each answer either succeeded or is a 503 with Retry-After; answers how many of each. */
export function tally(responses: LightMyRequestResponse[]): { ok: number; refused: number } {
  let ok = 0;
  let refused = 0;
  for (const response of responses) {
    if (response.statusCode === 200) {
      assert.equal(response.json().success, true, response.body);
      ok += 1;
    } else {
      assert.equal(response.statusCode, 503, response.body);
      assert.ok(Number(response.headers['retry-after']) >= 1, 'a 503 carries Retry-After');
      assert.match(
        response.json().detail,
        /Binance (request weight budget for this minute is used up|is not being called)/,
      );
      refused += 1;
    }
  }
  return { ok, refused };
}

export const metric = (text: string, name: string, labels: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
};

/** One user's three loops of syncs (balance then trades, as fast as answers come), each `rounds` long. */
export async function greedyLoops(apps: TestApp[], user: TestUser, rounds: number): Promise<LightMyRequestResponse[]> {
  const loops = [0, 1, 2].map(async (loop) => {
    const answers: LightMyRequestResponse[] = [];
    for (let i = 0; i < rounds; i++) answers.push(...(await syncBoth(apps[(loop + i) % apps.length]!, user)));
    return answers;
  });
  return (await Promise.all(loops)).flat();
}

/** The greedy user's answers: what it was admitted (weight 20 each) and its 429s, each with Retry-After. */
export function greedyTally(responses: LightMyRequestResponse[]): {
  ok: number;
  throttled: number;
  shareSpent: number;
} {
  const counts = { ok: 0, throttled: 0, shareSpent: 0 };
  for (const response of responses) {
    if (response.statusCode === 200) {
      counts.ok += 1;
      continue;
    }
    assert.equal(response.statusCode, 429, response.body);
    assert.ok(Number(response.headers['retry-after']) >= 1, 'a 429 carries Retry-After');
    const { detail } = response.json();
    if (/Your (balance|trade) sync is throttled: at most 10 a minute per user/.test(detail)) counts.throttled += 1;
    else if (/Your share of the Binance request weight for this minute is used up/.test(detail)) counts.shareSpent += 1;
    else assert.fail(`an unexpected 429: ${detail}`);
  }
  return counts;
}

/** With VENUE_USER_SHARE_PERCENT at 25: a quarter of the 960 the budget allows a minute, 12 calls of weight 20. */
export const USER_CAP = LIMIT * 0.8 * 0.25;
