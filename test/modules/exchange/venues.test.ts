import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTestApp, signIn, type TestUser } from '../../helpers/test-app.ts';
import { useVenueApp } from './venue-app-fixtures.ts';
import { OTHER_VENUES, startSilentServer, startVenueFakes } from './venue-fakes.ts';

describe('exchange venue data', () => {
  const { clock, fakes, t, user } = useVenueApp();

  const get = (url: string, who: TestUser | null = user) =>
    t.app.inject({ method: 'GET', url, headers: who?.headers ?? {} });

  describe('GET /api/exchange/supported', () => {
    it('lists the six venues with passphrase needs and ccxt capabilities, without calling them', async () => {
      const calls = fakes.binance.requests.length + fakes.binanceus.requests.length;
      const response = await get('/api/exchange/supported');
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.total, 6);
      assert.equal(body.default_exchange, 'binanceus');
      const ids = body.exchanges.map((e: { id: string }) => e.id);
      assert.deepEqual(ids, ['binanceus', 'binance', ...OTHER_VENUES]);
      const byId = Object.fromEntries(body.exchanges.map((e: { id: string }) => [e.id, e]));
      assert.equal(byId.binanceus.is_default, true);
      assert.equal(byId.binanceus.name, 'Binance US');
      assert.equal(byId.kucoin, undefined, 'removed: no fake proves it (decision 206)');
      assert.equal(byId.okx.requires_passphrase, true);
      assert.equal(byId.binance.requires_passphrase, false);
      assert.equal(byId.binance.capabilities.fetchMyTrades, true);
      assert.equal(typeof byId.bybit.capabilities.fetchTime, 'boolean');
      assert.equal(fakes.binance.requests.length + fakes.binanceus.requests.length, calls);
      assert.equal((await get('/api/exchange/supported', null)).statusCode, 401);
    });
  });

  describe('GET /api/exchange/markets', () => {
    it('lists spot markets with LOT_SIZE and MIN_NOTIONAL minimums, loading them once', async () => {
      const loads = fakes.binanceus.countRequests('/api/v3/exchangeInfo');
      const response = await get('/api/exchange/markets?exchange=binanceus');
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.exchange, 'binanceus');
      assert.equal(body.count, 17);
      const btc = body.markets.find((m: { symbol: string }) => m.symbol === 'BTC/USDT');
      assert.equal(btc.id, 'BTCUSDT');
      assert.equal(btc.min_amount, 0.00001);
      assert.equal(btc.min_cost, 10);
      assert.equal(btc.active, true);
      await get('/api/exchange/markets?exchange=binanceus');
      await get('/api/exchange/ticker?exchange=binanceus&symbol=ETHUSDT');
      assert.equal(
        fakes.binanceus.countRequests('/api/v3/exchangeInfo'),
        loads + 1,
        'markets come from the cache after the first load',
      );
      const global = (await get('/api/exchange/markets?exchange=binance')).json();
      assert.equal(global.markets.find((m: { symbol: string }) => m.symbol === 'BTC/USDT').min_cost, 5);
    });

    it(
      'answers 502 with the reason for an unreachable ' + 'venue, 422 for an unknown one, 401 without a token',
      async () => {
        const down = await get('/api/exchange/markets?exchange=kraken');
        assert.equal(down.statusCode, 502);
        assert.equal(down.json().detail, 'kraken could not be reached (ECONNREFUSED)');
        // An outage, not a bug: one warning naming the venue and the failure, no stack (decision 396).
        const logged = t
          .logLines()
          .filter((l) => l.reqId === down.headers['x-request-id'] && (l.level as number) >= 40);
        assert.deepEqual(
          logged.map((l) => [l.level, l.msg, l.dependency, l.failure, l.code]),
          [[40, 'kraken unavailable (refused): answering 502', 'kraken', 'refused', 'ECONNREFUSED']],
        );
        const unknown = await get('/api/exchange/markets?exchange=ftx');
        assert.equal(unknown.statusCode, 422);
        assert.equal(unknown.json().detail[0].type, 'enum');
        assert.equal((await get('/api/exchange/markets?exchange=binance', null)).statusCode, 401);
      },
    );
  });

  describe("a venue's own 5xx and maintenance answers", () => {
    /** The request's lines at warning level or above. */
    const loggedFor = (response: { headers: Record<string, unknown> }) =>
      t.logLines().filter((l) => l.reqId === response.headers['x-request-id'] && (l.level as number) >= 40);

    it('are an outage: one warning naming the venue and the failure, no stack, no signed URL (decision 405)', async () => {
      assert.equal((await get('/api/exchange/ticker?exchange=binanceus&symbol=ETHUSDT')).statusCode, 200);
      const answers: [number, unknown, string][] = [
        [503, 'Service Unavailable', 'venue_5xx'],
        [502, 'Bad Gateway', 'venue_5xx'],
        [200, { code: 1, msg: 'System is under maintenance.' }, 'maintenance'],
      ];
      for (const [status, body, failure] of answers) {
        fakes.binanceus.fail(status, body, { pathPrefix: '/api/v3/ticker' });
        const down = await get('/api/exchange/ticker?exchange=binanceus&symbol=ETHUSDT');
        assert.equal(down.statusCode, 503, `${status}: ${down.body}`);
        assert.match(down.json().detail, /^binanceus is unavailable: /);
        const logged = loggedFor(down);
        assert.deepEqual(
          logged.map((l) => [l.level, l.msg, l.dependency, l.failure, l.code, l.status]),
          [
            [
              40,
              `binanceus unavailable (${failure}): answering 503`,
              'binanceus',
              failure,
              failure === 'venue_5xx' ? `HTTP ${status}` : undefined,
              503,
            ],
          ],
          `${status}`,
        );
        assert.equal(logged[0]!.err, undefined, 'no cause: its message carries the signed URL');
      }
      assert.ok(!t.logText().includes(fakes.binanceus.url), "the venue's URL is not logged");
    });

    it('a 4xx ccxt files as unavailable stays an error with its cause (it may be our request)', async () => {
      fakes.binanceus.fail(404, 'Not Found', { pathPrefix: '/api/v3/ticker' });
      const refused = await get('/api/exchange/ticker?exchange=binanceus&symbol=ETHUSDT');
      assert.equal(refused.statusCode, 503);
      const logged = loggedFor(refused);
      assert.deepEqual(
        logged.map((l) => [l.level, l.msg]),
        [[50, 'request failed']],
      );
      assert.match(String((logged[0]!.err as { stack?: string }).stack), /ExchangeNotAvailable[\s\S]*\n\s+at /);
    });
  });

  describe('GET /api/exchange/ticker', () => {
    it('answers the 24 h ticker of a pair in any spelling', async () => {
      const response = await get('/api/exchange/ticker?exchange=binance&symbol=btcusdt');
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.symbol, 'BTC/USDT');
      assert.equal(body.exchange, 'binance');
      assert.equal(body.last, 65000);
      assert.equal(body.ask, 65000.01);
      assert.equal(body.percentage, 2.5);
      assert.equal(body.base_volume, 12000);
      assert.match(body.timestamp, /Z$/);
    });

    it('answers 404 for a pair the venue does not list and 422 without a symbol', async () => {
      const unknown = await get('/api/exchange/ticker?exchange=binance&symbol=DOGEEUR');
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().detail, 'binance does not list DOGEEUR');
      const missing = await get('/api/exchange/ticker?exchange=binance');
      assert.deepEqual(missing.json().detail[0].loc, ['query', 'symbol']);
      assert.equal((await get('/api/exchange/ticker?exchange=binance&symbol=BTCUSDT', null)).statusCode, 401);
    });

    it('maps venue failures: 429 with Retry-After, 418 to 503, 5xx to 502, a slow venue to 504', async () => {
      fakes.binance.fail(
        429,
        { code: -1003, msg: 'Too many requests.' },
        { pathPrefix: '/api/v3/ticker', retryAfter: 1 },
      );
      const limited = await get('/api/exchange/ticker?exchange=binance&symbol=ETHUSDT');
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.headers['retry-after'], '1');
      assert.match(limited.json().detail, /rate limit/);
      clock.advance(1_001);

      fakes.binance.fail(
        418,
        { code: -1003, msg: 'Way too much request weight used; IP banned until 1700000000000.' },
        { pathPrefix: '/api/v3/ticker', retryAfter: 1 },
      );
      const banned = await get('/api/exchange/ticker?exchange=binance&symbol=ETHUSDT');
      assert.equal(banned.statusCode, 503);
      assert.equal(banned.headers['retry-after'], '1');
      clock.advance(1_001);

      fakes.binance.fail(
        500,
        { code: -1000, msg: 'An unknown error occurred while processing the request.' },
        { pathPrefix: '/api/v3/ticker' },
      );
      const failed = await get('/api/exchange/ticker?exchange=binance&symbol=ETHUSDT');
      assert.equal(failed.statusCode, 502);
      assert.match(failed.json().detail, /unknown error occurred/);

      fakes.binance.delay(2_500, { pathPrefix: '/api/v3/ticker' });
      const slow = await get('/api/exchange/ticker?exchange=binance&symbol=ETHUSDT');
      assert.equal(slow.statusCode, 504);
      assert.equal(slow.json().detail, 'binance did not answer in time');
    });
  });

  describe('GET /api/exchange/quotes', () => {
    it("lists a base's quote currencies most liquid first and says whether the current one survives", async () => {
      const response = await get('/api/exchange/quotes?exchange=binance&base=btc&current_quote=usdc');
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.base, 'BTC');
      assert.deepEqual(
        body.quotes.map((q: { quote: string }) => q.quote),
        ['USDT', 'USDC', 'EUR'],
      );
      assert.equal(body.quotes[0].base_volume_24h, 12000);
      assert.equal(body.quotes[0].min_cost, 5);
      assert.deepEqual(body.current_quote, { quote: 'USDC', surviving: true });
      const gone = (await get('/api/exchange/quotes?exchange=binanceus&base=BTC&current_quote=EUR')).json();
      assert.deepEqual(gone.current_quote, { quote: 'EUR', surviving: false });
      assert.ok(!gone.quotes.some((q: { quote: string }) => q.quote === 'EUR'));
      const none = (await get('/api/exchange/quotes?exchange=binance&base=NOPE')).json();
      assert.deepEqual([none.count, none.current_quote], [0, null]);
    });

    it('validates base and exchange and needs a token', async () => {
      const invalid = await get('/api/exchange/quotes?base=');
      assert.deepEqual(
        (invalid.json().detail as { loc: string[]; type: string }[]).map((d) => `${d.loc[1]}:${d.type}`).sort(),
        ['base:string_too_short', 'exchange:missing'],
      );
      assert.equal((await get('/api/exchange/quotes?exchange=binance&base=BTC', null)).statusCode, 401);
      assert.equal((await get('/api/exchange/quotes?exchange=kraken&base=BTC')).statusCode, 502);
    });
  });

  describe('GET /api/exchange/route', () => {
    it(
      'ranks the venues listing the pair by price after ' + 'fees and lists the unreachable ones with the reason',
      async () => {
        const response = await get('/api/exchange/route?base=BTC&quote=USDT');
        assert.equal(response.statusCode, 200);
        const body = response.json();
        assert.deepEqual(
          body.routes.map((r: { exchange: string }) => r.exchange),
          ['binanceus', 'binance'],
        );
        const [us, global] = body.routes;
        assert.equal(us.symbol, 'BTC/USDT');
        assert.equal(us.rank, 1);
        assert.equal(us.price, 64900.01);
        assert.equal(us.taker_fee, 0.001);
        assert.equal(us.effective_price, 64900.01 * 1.001);
        assert.equal(us.min_amount, 0.00001);
        assert.equal(us.min_cost, 10);
        assert.equal(global.min_cost, 5);
        assert.equal(body.best.exchange, 'binanceus');
        assert.deepEqual(
          body.unavailable.map((u: { exchange: string }) => u.exchange).sort(),
          [...OTHER_VENUES].sort(),
        );
        assert.match(body.unavailable[0].reason, /could not be reached/);
        assert.ok(!response.body.includes('127.0.0.1'), 'no internal address in the answer');
        assert.deepEqual(body.not_listed, []);
      },
    );

    it('drops venues whose minimum order exceeds size or quote_size', async () => {
      const small = (await get('/api/exchange/route?base=BTC&quote=USDT&quote_size=7')).json();
      assert.deepEqual(
        small.routes.map((r: { exchange: string }) => r.exchange),
        ['binance'],
      );
      assert.deepEqual(small.excluded, [
        { exchange: 'binanceus', symbol: 'BTC/USDT', reason: 'min_cost 10 exceeds quote_size 7' },
      ]);
      const tiny = (await get('/api/exchange/route?base=BTC&quote=USDT&size=0.000001')).json();
      assert.equal(tiny.routes.length, 0);
      assert.equal(tiny.best, null);
      assert.equal(tiny.excluded.length, 2);
      const unlisted = (await get('/api/exchange/route?base=BTC&quote=EUR')).json();
      assert.deepEqual(unlisted.not_listed, ['binanceus']);
      assert.deepEqual(
        unlisted.routes.map((r: { exchange: string }) => r.exchange),
        ['binance'],
      );
    });

    it('validates its query and needs a token', async () => {
      const invalid = await get('/api/exchange/route?base=BTC&size=0&quote_size=abc');
      assert.deepEqual(
        (invalid.json().detail as { loc: string[]; type: string }[]).map((d) => `${d.loc[1]}:${d.type}`).sort(),
        ['quote:missing', 'quote_size:float_parsing', 'size:greater_than'],
      );
      assert.equal((await get('/api/exchange/route?base=BTC&quote=USDT', null)).statusCode, 401);
    });
  });

  describe('GET /api/exchange/{exchange_name}/info', () => {
    it('answers fees, limits, rate limit, countries and links', async () => {
      const response = await get('/api/exchange/binanceus/info');
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.name, 'Binance US');
      assert.deepEqual(body.countries, ['US']);
      assert.equal(body.fees.trading.taker, 0.001);
      assert.equal(body.rate_limit.interval_ms, 50);
      assert.equal(body.limits.markets_count, 17);
      assert.deepEqual(body.limits.min_cost_by_quote, { BTC: 0.0001, USDC: 10, USDT: 10 });
      assert.equal(body.limits.markets_error, null);
      assert.match(body.urls.www, /^https:\/\/www\.binance\.us/);
    });

    it('still answers the static facts when the venue is unreachable', async () => {
      const body = (await get('/api/exchange/kraken/info')).json();
      assert.equal(body.name, 'Kraken');
      assert.equal(body.limits.markets_count, null);
      assert.match(body.limits.markets_error, /kraken could not be reached/);
      assert.equal((await get('/api/exchange/ftx/info')).statusCode, 422);
      assert.equal((await get('/api/exchange/kraken/info', null)).statusCode, 401);
    });
  });

  describe('venue health', () => {
    it('is public, reports each venue with latency, and answers from the cache for a minute', async () => {
      const statusCalls = fakes.binance.countRequests('/sapi/v1/system/status');
      const response = await t.app.inject({ method: 'GET', url: '/api/exchange/health' });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.status, 'degraded');
      assert.equal(body.healthy_count, 2);
      assert.equal(body.total, 6);
      assert.equal(body.exchanges.binance.status, 'healthy');
      assert.equal(typeof body.exchanges.binance.latency_ms, 'number');
      assert.equal(body.exchanges.binanceus.status, 'healthy');
      assert.equal(body.exchanges.kraken.status, 'unreachable');
      assert.equal(body.exchanges.kraken.latency_ms, null);
      assert.equal(fakes.binance.countRequests('/sapi/v1/system/status'), statusCalls + 1);

      const cached = (await t.app.inject({ method: 'GET', url: '/api/exchange/health' })).json();
      assert.equal(cached.exchanges.binance.cached, true);
      assert.equal(fakes.binance.countRequests('/sapi/v1/system/status'), statusCalls + 1);
    });

    it(
      'honours force_refresh for an admin only: anyone ' + "else's answer comes from the cache, at no venue call",
      async () => {
        await t.app.inject({ method: 'GET', url: '/api/exchange/health' });
        const statusCalls = fakes.binance.countRequests('/sapi/v1/system/status');
        const admin = await signIn(t.app, t.database, { role: 'admin' });
        for (const headers of [{}, user.headers, { authorization: 'Bearer not-a-token' }]) {
          for (let i = 0; i < 5; i++) {
            const response = await t.app.inject({
              method: 'GET',
              url: '/api/exchange/health?force_refresh=true',
              headers,
            });
            assert.equal(response.statusCode, 200);
            assert.equal(response.json().exchanges.binance.cached, true);
            const one = await t.app.inject({
              method: 'GET',
              url: '/api/exchange/binance/health?force_refresh=true',
              headers,
            });
            assert.equal(one.json().cached, true);
          }
        }
        assert.equal(fakes.binance.countRequests('/sapi/v1/system/status'), statusCalls, 'no venue was asked');
        const forced = await t.app.inject({
          method: 'GET',
          url: '/api/exchange/binance/health?force_refresh=true',
          headers: admin.headers,
        });
        assert.equal(forced.json().cached, false);
        assert.equal(
          fakes.binance.countRequests('/sapi/v1/system/status'),
          statusCalls + 1,
          "the admin's refresh asked the venue",
        );
      },
    );

    it('checks again on force_refresh (an admin) and reports maintenance', async () => {
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      const headers = admin.headers;
      fakes.sapi.binance.maintenance = true;
      try {
        const body = (
          await t.app.inject({ method: 'GET', url: '/api/exchange/binance/health?force_refresh=true', headers })
        ).json();
        assert.equal(body.exchange, 'binance');
        assert.equal(body.status, 'maintenance');
        assert.equal(body.cached, false);
        const all = (await t.app.inject({ method: 'GET', url: '/api/exchange/health' })).json();
        assert.equal(all.exchanges.binance.status, 'maintenance');
      } finally {
        fakes.sapi.binance.maintenance = false;
      }
      const fresh = (
        await t.app.inject({ method: 'GET', url: '/api/exchange/binance/health?force_refresh=true', headers })
      ).json();
      assert.equal(fresh.status, 'healthy');
    });

    it('validates the venue and force_refresh', async () => {
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/exchange/ftx/health' })).statusCode, 422);
      const bad = await t.app.inject({ method: 'GET', url: '/api/exchange/health?force_refresh=perhaps' });
      assert.equal(bad.json().detail[0].type, 'bool_parsing');
    });
  });
});

describe('a venue that never answers', () => {
  it('does not hold up route or health beyond the probe timeout', async () => {
    const fakes = await startVenueFakes();
    const silent = await startSilentServer();
    const others = Object.fromEntries(
      OTHER_VENUES.map((venue) => [venue, venue === 'kraken' ? silent.url : fakes.closedUrl]),
    );
    const t = await buildTestApp({
      env: fakes.env({
        EXCHANGE_API_URLS: JSON.stringify(others),
        EXCHANGE_TIMEOUT_MS: '30000',
        EXCHANGE_PROBE_TIMEOUT_MS: '2000',
      }),
    });
    try {
      const user = await signIn(t.app, t.database);
      const askRoute = () =>
        t.app.inject({ method: 'GET', url: '/api/exchange/route?base=BTC&quote=USDT', headers: user.headers });
      // The first call loads ccxt and the answering venues' markets; the second is timed. The probe
      // timeout leaves the answering venues (through a shared budget on a busy machine) time to
      // answer; waiting for the silent one would take the 30 s request timeout, half of which is the bound.
      assert.equal((await askRoute()).statusCode, 200);
      let started = performance.now();
      const route = await askRoute();
      let elapsed = performance.now() - started;
      assert.equal(route.statusCode, 200);
      assert.ok(elapsed < 15_000, `route took ${elapsed} ms`);
      const kraken = route.json().unavailable.find((u: { exchange: string }) => u.exchange === 'kraken');
      assert.equal(kraken.reason, 'kraken did not answer within 2000 ms');
      assert.equal(route.json().routes.length, 2, route.body);

      started = performance.now();
      const health = await t.app.inject({ method: 'GET', url: '/api/exchange/health' });
      elapsed = performance.now() - started;
      assert.ok(elapsed < 15_000, `health took ${elapsed} ms`);
      assert.equal(health.json().exchanges.kraken.status, 'unreachable');
    } finally {
      await t.close();
      await silent.close();
      await fakes.close();
    }
  });
});
