// One breaker per venue (decision 174): the market module's client and every user's ccxt calls go
// through the same guarded fetch, so a breaker opened through one holds the other back, and the
// exchange health, the market status and the dashboard all report that one breaker. Against the
// loopback Binance fake.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { startBinanceFake, type BinanceFake } from '../../fakes/binance.ts';
import { closedPort } from '../../helpers/ports.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { OTHER_VENUES } from './venue-fakes.ts';

/** A second into a minute, so the weight minute never turns over within a step. */
const START = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
const LIMIT = 1200;

type Row = Record<string, unknown>;

describe('one breaker for Binance, whoever calls it', () => {
  const clock = fixedClock(START);
  let fake: BinanceFake;
  let t: TestApp;
  let user: TestUser;
  let admin: TestUser;

  before(async () => {
    fake = await startBinanceFake({ weightLimit: LIMIT, weightClock: () => clock.now().getTime() });
    const closed = `http://127.0.0.1:${await closedPort()}`;
    t = await buildTestApp({
      clock,
      env: {
        BINANCE_API_URL: fake.url,
        BINANCEUS_API_URL: closed,
        EXCHANGE_API_URLS: JSON.stringify(Object.fromEntries(OTHER_VENUES.map((venue) => [venue, closed]))),
        EXCHANGE_RATE_LIMIT: 'false',
        COINGECKO_API_URL: closed,
        BINANCE_WS_URL: `ws://127.0.0.1:${await closedPort()}`,
      },
    });
    user = await signIn(t.app, t.database);
    // Only an admin's force_refresh checks the venue now; anyone else reads the last minute's answer.
    admin = await signIn(t.app, t.database, { role: 'admin' });
    const account = fake.addAccount({
      apiKey: `breakerKey${process.pid}`.padEnd(64, 'A'),
      secret: `breakerSecret${process.pid}`.padEnd(64, 'z'),
      balances: [{ asset: 'BTC', free: '0.5', locked: '0' }],
      trades: {},
    });
    await storeVenueCredential(t.app, user, 'binance', account);
  });
  after(async () => {
    await t.close();
    await fake.close();
  });
  // Each case starts in a fresh minute, past any pause the one before opened.
  beforeEach(() => clock.advance(180_000));

  const get = async <T = Row>(url: string, headers?: Record<string, string>) => {
    const response = await t.app.inject({ method: 'GET', url, headers });
    return { status: response.statusCode, headers: response.headers, body: response.json() as T };
  };
  const syncBalance = () =>
    t.app.inject({ method: 'POST', url: '/api/exchange/balance/sync?exchange=binance', headers: user.headers });

  /** The breaker as the exchange health, the market status and the dashboard report it. */
  async function reported(): Promise<{ health: string; exchange: Row; market: Row; dashboard: Row }> {
    const { status: health, budget: exchange } = (
      await get<{ status: string; budget: Row }>('/api/exchange/binance/health?force_refresh=true', admin.headers)
    ).body;
    const market = (await get<{ upstreams: Record<string, Row> }>('/api/v1/market/status')).body.upstreams.binance!;
    const dashboard = (
      await get<{ exchanges: { venue: string; budget: Row }[] }>('/api/v1/dashboard/integrations')
    ).body.exchanges.find((e) => e.venue === 'binance')!.budget;
    return { health, exchange, market, dashboard };
  }

  it('a 429 the market client meets stops the ccxt calls, and every health answer shows it', async () => {
    assert.equal((await get('/api/v1/market/symbols')).status, 200);
    fake.fail(429, { code: -1003, msg: 'Too many requests.' }, { retryAfter: 30 });
    const market = await get('/api/v1/market/orderbook?symbol=BTCUSDT');
    assert.equal(market.status, 503);
    assert.deepEqual(market.body, { detail: 'Binance is not being called for 30 s after HTTP 429 (rate limit)' });
    const sent = fake.requests.length;

    const sync = await syncBalance();
    assert.equal(sync.statusCode, 503, sync.body);
    assert.equal(sync.headers['retry-after'], '30');
    assert.equal(sync.json().detail, 'Binance is not being called for 30 s after HTTP 429 (rate limit)');
    assert.equal(fake.requests.length, sent, 'the ccxt call was never sent');

    const { health, exchange, market: status, dashboard } = await reported();
    assert.equal(health, 'rate_limited', 'the health check itself was refused, uncalled');
    assert.equal(exchange.breaker_open, true);
    assert.match(String(exchange.breaker_reason), /HTTP 429/);
    const until = new Date(START.getTime() + 180_000 + 30_000).toISOString();
    assert.equal(exchange.breaker_until, until);
    assert.deepEqual(
      [status.breaker_open, status.breaker_until, status.breaker_reason],
      [true, until, exchange.breaker_reason],
    );
    assert.deepEqual([status.circuit, status.open_until, status.open_reason], ['open', until, exchange.breaker_reason]);
    assert.deepEqual([dashboard.breaker_open, dashboard.breaker_until], [true, until]);

    clock.advance(30_001);
    assert.equal((await syncBalance()).statusCode, 200, 'after Retry-After both resume');
    const after = await reported();
    assert.deepEqual(
      [after.exchange.breaker_open, after.market.breaker_open, after.market.circuit, after.dashboard.breaker_open],
      [false, false, 'closed', false],
    );
  });

  it('a 429 a ccxt call meets stops the market client, and the market status shows it', async () => {
    fake.spendWeight(LIMIT - 10);
    const limited = await syncBalance();
    assert.equal(limited.json().error_type, 'rate_limit', "the venue's own 429");
    const sent = fake.requests.length;

    const market = await get('/api/v1/market/orderbook?symbol=ETHUSDT');
    assert.equal(market.status, 503);
    assert.match(
      String((market.body as Row).detail),
      /^Binance is not being called for \d+ s after HTTP 429 \(rate limit\)$/,
    );
    assert.equal(fake.requests.length, sent, 'the market call was never sent');

    const { exchange, market: status, dashboard } = await reported();
    assert.equal(exchange.breaker_open, true);
    assert.deepEqual(
      [status.breaker_open, status.circuit, status.breaker_until, status.open_reason],
      [true, 'open', exchange.breaker_until, exchange.breaker_reason],
    );
    assert.equal(dashboard.breaker_open, true);
    assert.equal(fake.rateLimitAnswers[418], 0, 'never a ban');
  });

  it('five market failures in a row open the one breaker for 30 s: the ccxt calls wait too', async () => {
    fake.fail(500, undefined, { pathPrefix: '/api/v3/klines', times: 5 });
    for (let i = 0; i < 5; i++) assert.equal((await get('/api/v1/market/ohlc?symbol=BTCUSDT')).status, 502);
    const sent = fake.requests.length;

    const sync = await syncBalance();
    assert.equal(sync.statusCode, 503, sync.body);
    assert.equal(sync.json().detail, 'Binance is not being called for 30 s after 5 failures in a row');
    assert.equal(fake.requests.length, sent);

    const { health, exchange, market } = await reported();
    assert.equal(health, 'unreachable', `failures, not a rate limit, paused it: ${health}`);
    assert.deepEqual([exchange.breaker_open, exchange.breaker_reason], [true, '5 failures in a row']);
    assert.deepEqual([market.breaker_open, market.circuit, market.consecutive_failures], [true, 'open', 5]);

    clock.advance(30_001);
    assert.equal((await get('/api/v1/market/ohlc?symbol=BTCUSDT')).status, 200);
    assert.equal((await syncBalance()).statusCode, 200);
  });
});
