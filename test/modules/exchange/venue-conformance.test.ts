// One suite, every venue beyond Binance: the same scenarios through the public API against each
// venue's loopback fake, which checks the venue's real authentication and answers in its shapes,
// driven by the ccxt the service uses. A venue is listed only if it passes here (decision 206).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { seedFills, type VenueAccount } from '../../fakes/venue-loopback.ts';
import {
  CONFORMANCE_VENUES,
  conformanceAccount,
  credentialBody,
  type ConformanceFake,
  type ConformanceVenue,
} from './conformance-venues.ts';
import { startVenueFakes, type VenueFakes } from './venue-fakes.ts';

const FILLS = 250;

// One app (one database per file) reaches every venue's fake; each venue's scenarios run as a user of their own.
let fakes: VenueFakes;
let t: TestApp;
const venueFakes = new Map<string, ConformanceFake>();

before(async () => {
  fakes = await startVenueFakes();
  const urls = JSON.parse(fakes.env().EXCHANGE_API_URLS!) as Record<string, string>;
  for (const v of CONFORMANCE_VENUES) {
    const fake = await v.start();
    venueFakes.set(v.venue, fake);
    urls[v.venue] = fake.url;
  }
  t = await buildTestApp({
    env: fakes.env({
      EXCHANGE_API_URLS: JSON.stringify(urls),
      EXCHANGE_TIMEOUT_MS: '1500',
      // A backlog is walked here with up to 30 syncs in a row; the per-user throttle (decision 200) has
      // its own tests.
      SYNC_PER_USER_PER_MINUTE: '100',
      ...Object.assign({}, ...CONFORMANCE_VENUES.map((v) => v.env ?? {})),
    }),
  });
});
after(async () => {
  await t.close();
  for (const fake of venueFakes.values()) await fake.close();
  await fakes.close();
});

for (const v of CONFORMANCE_VENUES) {
  describe(`venue conformance: ${v.venue}`, () => {
    let fake: ConformanceFake;
    let user: TestUser;
    let account: VenueAccount;

    before(async () => {
      fake = venueFakes.get(v.venue)!;
      user = await signIn(t.app, t.database);
      account = fake.addAccount(conformanceAccount(v, FILLS));
    });

    const call = (method: 'GET' | 'POST', url: string, payload?: object, who: TestUser | null = user) =>
      t.app.inject({ method, url, headers: who?.headers ?? {}, ...(payload ? { payload } : {}) });
    const validate = (body: object) => call('POST', '/api/exchange/validate', body);

    it('validates a key; a wrong secret or unknown key is invalid_key, an outage is not', async () => {
      const good = await validate(credentialBody(v, account, 'exchange'));
      assert.equal(good.statusCode, 200, good.body);
      assert.equal(good.json().valid, true, good.body);
      assert.equal(good.json().currencies_with_balance, 3);

      const wrong = (await validate({ ...credentialBody(v, account, 'exchange'), api_secret: v.otherSecret() })).json();
      assert.deepEqual([wrong.valid, wrong.cause], [false, 'invalid_key'], JSON.stringify(wrong));
      const stranger = conformanceAccount(v, 0);
      const unknown = (await validate(credentialBody(v, stranger, 'exchange'))).json();
      assert.deepEqual([unknown.valid, unknown.cause], [false, 'invalid_key'], JSON.stringify(unknown));

      fake.fail(v.outage, { path: v.privatePath, times: 3 });
      const down = await validate(credentialBody(v, account, 'exchange'));
      fake.clearFailures();
      assert.equal(down.statusCode, 200);
      assert.equal(down.json().valid, false);
      assert.ok(['venue_unreachable', 'venue_error'].includes(down.json().cause), down.body);
      assert.ok(!down.body.includes(account.secret) && !down.body.includes('127.0.0.1'));
      assert.equal(
        (await call('POST', '/api/exchange/validate', credentialBody(v, account, 'exchange'), null)).statusCode,
        401,
      );
    });

    it("stores credentials with the venue's required fields", async () => {
      if (v.venue === 'okx') {
        const { api_passphrase: _, ...without } = credentialBody(v, account, 'exchange_name');
        const refused = await call('POST', '/api/exchange/credentials', without);
        assert.equal(refused.statusCode, 422, refused.body);
        assert.match(refused.body, /api_passphrase/);
      }
      const created = await call('POST', '/api/exchange/credentials', credentialBody(v, account, 'exchange_name'));
      assert.equal(created.statusCode, 201, created.body);
      assert.ok(!created.body.includes(account.secret));
    });

    it('reads and syncs the balance', async () => {
      const synced = await call('POST', `/api/exchange/balance/sync?exchange=${v.venue}`);
      assert.equal(synced.statusCode, 200, synced.body);
      assert.equal(synced.json().success, true, synced.body);
      const live = await call('GET', `/api/exchange/balance?exchange=${v.venue}`);
      assert.equal(live.statusCode, 200, live.body);
      const text = JSON.stringify(live.json());
      for (const currency of ['BTC', 'ETH', 'USDT'])
        assert.ok(text.includes(`"${currency}"`), `${currency} in ${text}`);
      assert.ok(text.includes('0.6'), 'BTC total is free + locked');
    });

    it(`pages through ${FILLS} fills with the venue's own paging, never skipping nor repeating`, async () => {
      let synced = 0;
      let rounds = 0;
      for (;;) {
        rounds += 1;
        assert.ok(rounds <= 20, 'the sync ends');
        const answer = await call('POST', `/api/exchange/trades/sync?exchange=${v.venue}&symbol=BTC/USDT&limit=100`);
        assert.equal(answer.statusCode, 200, answer.body);
        const body = answer.json();
        assert.equal(body.success, true, answer.body);
        synced += body.trades_synced;
        if (!body.has_more) break;
      }
      assert.equal(synced, FILLS);
      const listed = await call('GET', `/api/exchange/trades?exchange=${v.venue}&symbol=BTC/USDT&limit=1000`);
      assert.equal(listed.statusCode, 200, listed.body);
      const ids = (listed.json().trades as { exchange_trade_id: string }[]).map((r) => r.exchange_trade_id).sort();
      const expected = account.fills
        .filter((f) => f.base === 'BTC')
        .map((f) => f.id)
        .sort();
      assert.deepEqual(ids, expected);

      const again = (await call('POST', `/api/exchange/trades/sync?exchange=${v.venue}&symbol=BTC/USDT`)).json();
      assert.equal(again.trades_synced, 0, 'nothing new');
      const newer = seedFills('BTC', 'USDT', 4, Date.now() - 60_000 * 5, `${v.venue.slice(0, 2).toUpperCase()}N`);
      account.fills.push(...newer);
      const more = (await call('POST', `/api/exchange/trades/sync?exchange=${v.venue}&symbol=BTC/USDT`)).json();
      assert.equal(more.trades_synced, 4, JSON.stringify(more));
    });

    it('narrows a backlog of many pages to its oldest part, still never skipping', async () => {
      // 650 ETH/USDT fills after the stored ones: more than three pages per call, so windows are halved.
      const backlog = seedFills(
        'ETH',
        'USDT',
        650,
        Date.now() - 12 * 3_600_000,
        `${v.venue.slice(0, 2).toUpperCase()}K`,
      );
      account.fills.push(...backlog);
      let synced = 0;
      for (let round = 1; ; round += 1) {
        assert.ok(round <= 30, 'the sync ends');
        const body = (
          await call('POST', `/api/exchange/trades/sync?exchange=${v.venue}&symbol=ETH/USDT&limit=100`)
        ).json();
        assert.equal(body.success, true, JSON.stringify(body));
        synced += body.trades_synced;
        if (!body.has_more) break;
      }
      assert.equal(synced, 653);
      const listed = await call('GET', `/api/exchange/trades?exchange=${v.venue}&symbol=ETH/USDT&limit=1000`);
      const ids = (listed.json().trades as { exchange_trade_id: string }[]).map((r) => r.exchange_trade_id).sort();
      assert.deepEqual(
        ids,
        account.fills
          .filter((f) => f.base === 'ETH')
          .map((f) => f.id)
          .sort(),
      );
    });

    it('lists the stored trades and their stats', async () => {
      const stats = await call('GET', `/api/exchange/trades/stats?exchange=${v.venue}`);
      assert.equal(stats.statusCode, 200, stats.body);
      assert.match(stats.body, new RegExp(`"total_trades":${FILLS + 4 + 653}\\b`));
      const page = await call('GET', `/api/exchange/trades?exchange=${v.venue}&limit=10`);
      assert.equal(page.json().trades.length, 10);
      assert.equal((await call('GET', `/api/exchange/trades?exchange=${v.venue}`, undefined, null)).statusCode, 401);
    });

    it('walks past more fills of one millisecond than a page holds, storing each once (decision 891)', async () => {
      // One order filled against five makers: five fills at the same instant (whole seconds, as Kraken
      // states them), newer than every stored one; a page of 2 holds fewer than the burst.
      const at = Math.floor((Date.now() - 60_000) / 1000) * 1000;
      const burst = seedFills('BTC', 'USDT', 5, at, `${v.venue.slice(0, 2).toUpperCase()}S`).map((f) => ({
        ...f,
        time: at,
      }));
      account.fills.push(...burst);
      let synced = 0;
      for (let round = 1; ; round += 1) {
        assert.ok(round <= 6, 'the sync ends, not answering the same page again');
        const body = (
          await call('POST', `/api/exchange/trades/sync?exchange=${v.venue}&symbol=BTC/USDT&limit=2`)
        ).json();
        assert.equal(body.success, true, JSON.stringify(body));
        synced += body.trades_synced;
        if (!body.has_more) break;
      }
      assert.equal(synced, 5);
      const listed = await call('GET', `/api/exchange/trades?exchange=${v.venue}&symbol=BTC/USDT&limit=1000`);
      const ids = new Set((listed.json().trades as { exchange_trade_id: string }[]).map((r) => r.exchange_trade_id));
      assert.ok(
        burst.every((f) => ids.has(f.id)),
        'every fill of the burst is stored',
      );
    });

    it('answers markets, ticker, venue info and health', async () => {
      const markets = await call('GET', `/api/exchange/markets?exchange=${v.venue}`);
      assert.equal(markets.statusCode, 200, markets.body);
      assert.match(markets.body, /"BTC\/USDT"/);
      const ticker = await call('GET', `/api/exchange/ticker?exchange=${v.venue}&symbol=BTCUSDT`);
      assert.equal(ticker.statusCode, 200, ticker.body);
      assert.equal(ticker.json().last, 65000.1);
      assert.equal(ticker.json().bid, 64999.9);
      const info = await call('GET', `/api/exchange/${v.venue}/info`);
      assert.equal(info.statusCode, 200, info.body);
      const health = await call('GET', `/api/exchange/${v.venue}/health?force_refresh=true`);
      assert.equal(health.statusCode, 200, health.body);
      assert.match(health.body, /"status":"(ok|healthy)"/);
    });

    it('answers a slow venue with a timeout, not a hang or a 500', async () => {
      fake.fail({ body: {} }, { path: v.privatePath, delayMs: 2500, times: 2 });
      const slow = await call('POST', `/api/exchange/balance/sync?exchange=${v.venue}`);
      fake.clearFailures();
      assert.ok(slow.statusCode < 500 || slow.statusCode === 504, slow.body);
      assert.match(slow.body, /timeout|did not answer/i);
    });

    it("reports the venue's rate-limit answer as rate limited with a Retry-After, never as a 5xx error", async () => {
      fake.fail(v.rateLimited, { path: v.privatePath, times: 3 });
      const limited = await call('POST', `/api/exchange/balance/sync?exchange=${v.venue}`);
      fake.clearFailures();
      assert.ok([200, 429, 503].includes(limited.statusCode), limited.body);
      assert.match(limited.body, /rate.?limit/i);
      if (limited.statusCode !== 200) assert.ok(limited.headers['retry-after'], 'says when to come back');
      const sent = fake.requests.length;
      const next = await call('POST', `/api/exchange/balance/sync?exchange=${v.venue}`);
      if (v.tripsBreaker) {
        // Nothing more is sent to the venue until its window has passed, so no ban can follow.
        assert.equal(next.statusCode, 503, next.body);
        assert.ok(next.headers['retry-after']);
        assert.equal(fake.requests.length, sent, 'the breaker held the call back');
      } else {
        // A per-key limit says nothing about the venue: the key's counter is full (decision 255), so the
        // next call waits for the room the venue's counter would give it, then goes through.
        assert.equal(next.statusCode, 200, next.body);
        assert.equal(next.json().success, true, next.body);
        const limited = fake.requests
          .slice(0, sent)
          .filter((r) => r.path.startsWith(v.privatePath))
          .at(-1);
        const resumed = fake.requests.slice(sent).find((r) => r.path.startsWith(v.privatePath));
        assert.ok(limited && resumed, 'the key was called again');
        assert.ok(
          resumed.at - limited.at >= v.backoffMs,
          `waited ${resumed.at - limited.at} ms for the counter's room (${v.backoffMs})`,
        );
      }
    });
  });
}

/** The venue list is what the suite proves (decision 206): the table covers every non-Binance venue. */
describe('venue conformance: coverage', () => {
  it('runs over every listed venue beyond the two Binance ones', async () => {
    const { VENUES } = await import('../../../src/modules/exchange/venues.domain.ts');
    const covered = new Set<string>(CONFORMANCE_VENUES.map((c: ConformanceVenue) => c.venue));
    assert.deepEqual(
      VENUES.filter((venue) => !['binance', 'binanceus'].includes(venue) && !covered.has(venue)),
      [],
    );
  });

  it('refuses the removed venues with a 422 naming the supported ones', async () => {
    const user = await signIn(t.app, t.database);
    for (const venue of ['kucoin', 'gate', 'bitfinex', 'gemini']) {
      const refused = await t.app.inject({
        method: 'POST',
        url: '/api/exchange/credentials',
        headers: user.headers,
        payload: { exchange_name: venue, api_key: 'some-key-1234', api_secret: 'some-secret-1234' },
      });
      assert.equal(refused.statusCode, 422, refused.body);
      const detail = refused.json().detail[0];
      assert.deepEqual([detail.loc.join('.'), detail.type], ['body.exchange_name', 'enum']);
      for (const supported of ['binanceus', 'binance', 'coinbase', 'kraken', 'okx', 'bybit'])
        assert.ok(detail.msg.includes(`'${supported}'`), detail.msg);
    }
  });
});
