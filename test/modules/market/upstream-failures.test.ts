// When the upstreams misbehave: single-flight, 429/418 circuits, 5xx, timeouts, unreachable hosts,
// the request-weight budget, and stale answers within their bound. Never a 500, never a made-up price.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { closedPort } from '../../helpers/ports.ts';
import { startMarket, type MarketHarness } from './market-fixtures.ts';

type Row = Record<string, unknown>;
// The start of a minute, so that the weight budget's minute does not roll over during a test.
const START = '2026-03-02T10:00:00.000Z';

async function withMarket(
  options: Parameters<typeof startMarket>[0],
  run: (m: MarketHarness, clock: ReturnType<typeof fixedClock>) => Promise<void>,
) {
  const clock = fixedClock(START);
  const m = await startMarket({ clock, ...options });
  try {
    await run(m, clock);
  } finally {
    await m.stop();
  }
}

const binanceCalls = (m: MarketHarness) => m.binance.requests.length;

describe('single flight', () => {
  it('answers 200 concurrent requests for one key with one upstream call', () =>
    withMarket({}, async (m) => {
      m.binance.delay(200, { pathPrefix: '/api/v3/ticker/24hr' });
      const answers = await Promise.all(
        Array.from({ length: 200 }, () => m.get<Row[]>('/api/v1/market/ticker?limit=20')),
      );
      assert.ok(answers.every((a) => a.status === 200));
      assert.ok(answers.every((a) => JSON.stringify(a.body) === JSON.stringify(answers[0]!.body)));
      assert.equal(m.binance.countRequests('/api/v3/ticker/24hr'), 1);
      assert.equal(m.binance.countRequests('/api/v3/exchangeInfo'), 1);

      m.binance.delay(200, { pathPrefix: '/api/v3/klines' });
      const candles = await Promise.all(
        Array.from({ length: 200 }, (_, i) => m.get(`/api/v1/market/ohlc?symbol=ETHUSDT&interval=5m&limit=${i + 1}`)),
      );
      assert.ok(candles.every((a) => a.status === 200));
      assert.equal(m.binance.countRequests('/api/v3/klines'), 1);
    }));
});

describe('rate limits', () => {
  it('after a 429 with Retry-After, calls nothing until it has passed and answers 503', () =>
    withMarket({}, async (m, clock) => {
      assert.equal((await m.get('/api/v1/market/symbols')).status, 200);
      m.binance.fail(
        429,
        { code: -1003, msg: 'Too many requests; current limit is 6000 request weight per 1 MINUTE.' },
        { retryAfter: 30 },
      );
      const refused = await m.get('/api/v1/market/ticker');
      assert.equal(refused.status, 503);
      assert.equal(refused.headers['retry-after'], '30');
      assert.deepEqual(refused.body, { detail: 'Binance is not being called for 30 s after HTTP 429 (rate limit)' });
      const seen = binanceCalls(m);

      for (const url of [
        '/api/v1/market/ticker',
        '/api/v1/market/ohlc?symbol=BTCUSDT',
        '/api/v1/market/orderbook?symbol=BTCUSDT',
        '/api/v1/market/prices?symbols=BTCUSDT',
        '/api/v1/market/movers',
      ]) {
        const answer = await m.get(url);
        assert.equal(answer.status, 503, url);
        assert.ok(Number(answer.headers['retry-after']) > 0);
      }
      clock.advance(29_000);
      assert.equal((await m.get('/api/v1/market/ticker')).status, 503);
      assert.equal(binanceCalls(m), seen, 'no call reached Binance during the window');

      const status = await m.get<{ status: string; upstreams: Record<string, Row> }>('/api/v1/market/status');
      assert.equal(status.body.status, 'degraded');
      assert.equal(status.body.upstreams.binance!.circuit, 'open');
      assert.equal(status.body.upstreams.binance!.healthy, false);
      assert.equal(status.body.upstreams.binance!.open_until, new Date(Date.parse(START) + 30_000).toISOString());
      assert.match(String(status.body.upstreams.binance!.open_reason), /429/);
      assert.equal(status.body.upstreams.coingecko!.healthy, true);

      clock.advance(1_001);
      assert.equal((await m.get('/api/v1/market/ticker')).status, 200);
      assert.ok(binanceCalls(m) > seen, 'calls resume after the window');
    }));

  it('after a 418 ban stops calling for Retry-After, or 120 s when it is missing', () =>
    withMarket({}, async (m, clock) => {
      m.binance.fail(418, { code: -1003, msg: 'Way too much request weight used; IP banned until 1767225600000.' });
      const banned = await m.get('/api/v1/market/symbols');
      assert.equal(banned.status, 503);
      assert.equal(banned.headers['retry-after'], '120');
      assert.match(String((banned.body as Row).detail), /418/);
      const seen = binanceCalls(m);
      clock.advance(119_000);
      assert.equal((await m.get('/api/v1/market/symbols')).status, 503);
      assert.equal(binanceCalls(m), seen);
      clock.advance(1_001);
      assert.equal((await m.get('/api/v1/market/symbols')).status, 200);
    }));

  it("refuses calls that would take the minute's used weight over the budget, before making them", () =>
    withMarket({ binance: { weightLimit: 120 } }, async (m) => {
      // exchangeInfo tells the real limit (120, so a budget of 96) and costs 20.
      assert.equal((await m.get('/api/v1/market/symbols')).status, 200);
      const refused = await m.get('/api/v1/market/ticker');
      assert.equal(refused.status, 503, 'all 24 h tickers weigh 80: 20 + 80 > 96');
      assert.equal(refused.headers['retry-after'], '60');
      assert.deepEqual(refused.body, { detail: 'Binance request weight budget for this minute is used up (20 of 96)' });
      assert.equal(m.binance.countRequests('/api/v3/ticker/24hr'), 0);
      assert.equal(
        (await m.get('/api/v1/market/orderbook?symbol=BTCUSDT')).status,
        200,
        'a depth call weighs 5 and fits',
      );
      const { body } = await m.get<{ upstreams: Record<string, Row> }>('/api/v1/market/status');
      assert.equal(body.upstreams.binance!.used_weight_1m, 25);
      assert.equal(body.upstreams.binance!.weight_limit_1m, 120);
      assert.equal(body.upstreams.binance!.weight_budget_1m, 96);
    }));

  it('counts the weight the upstream reports, which includes other clients behind our IP', () =>
    withMarket({ binance: { weightLimit: 120 } }, async (m) => {
      assert.equal((await m.get('/api/v1/market/symbols')).status, 200);
      m.binance.spendWeight(13);
      // Depth calls weigh 5 and, their keys being the caller's choice, may take half of the budget of 96
      // (decision 741): the headers say 38, then 43, then 48 of 48.
      for (const symbol of ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']) {
        assert.equal((await m.get(`/api/v1/market/orderbook?symbol=${symbol}`)).status, 200, symbol);
      }
      const refused = await m.get('/api/v1/market/orderbook?symbol=BNBUSDT');
      assert.equal(refused.status, 503, 'by our own count (35) it would fit');
      assert.deepEqual(refused.body, { detail: 'Binance request weight budget for this minute is used up (48 of 48)' });
      assert.equal(m.binance.countRequests('/api/v3/depth'), 3);
    }));
});

describe('upstream errors', () => {
  it('answers 502, never 500, when a 200 carries a body of another shape', () =>
    withMarket({}, async (m) => {
      const wrong: [string, string, unknown][] = [
        ['/api/v1/market/symbols', '/api/v3/exchangeInfo', { code: 0, msg: 'maintenance' }],
        ['/api/v1/market/ticker', '/api/v3/ticker/24hr', { symbol: 'BTCUSDT' }],
        ['/api/v1/market/prices?symbols=BTCUSDT', '/api/v3/ticker/price', [null]],
        ['/api/v1/market/ohlc?symbol=BTCUSDT', '/api/v3/klines', [{ open: '1' }]],
        ['/api/v1/market/orderbook?symbol=BTCUSDT', '/api/v3/depth', { lastUpdateId: 1 }],
      ];
      for (const [url, upstream, body] of wrong) {
        m.binance.fail(200, body, { pathPrefix: upstream });
        const answer = await m.get(url);
        assert.equal(answer.status, 502, url);
        assert.deepEqual(answer.body, { detail: `Binance answered ${upstream} with a body of an unexpected shape` });
        // A success in between keeps the five-failures circuit closed.
        assert.equal((await m.get('/api/v1/market/orderbook?symbol=ETHUSDT')).status, 200);
      }
      m.coingecko.fail(
        200,
        { status: { error_code: 10002, error_message: 'API Key Missing' } },
        { pathPrefix: '/coins/markets' },
      );
      assert.deepEqual((await m.get('/api/v1/market/top')).body, {
        detail: 'CoinGecko answered /coins/markets with a body of an unexpected shape',
      });
      m.coingecko.fail(200, {}, { pathPrefix: '/global' });
      const stats = await m.get('/api/v1/market/stats');
      assert.notEqual(stats.status, 500);
    }));

  it('every view of the 24 h tickers, and live prices without the stream, answer 502 when Binance fails', () =>
    withMarket({}, async (m) => {
      assert.equal((await m.get('/api/v1/market/symbols')).status, 200);
      for (const url of [
        '/api/v1/market/heatmap',
        '/api/v1/market/volume-distribution',
        '/api/v1/market/activity',
        '/api/v1/market/trending',
        '/api/v1/market/prices/live',
      ]) {
        m.binance.fail(500);
        const failed = await m.get(url);
        assert.equal(failed.status, 502, url);
        assert.match(String((failed.body as Row).detail), /^Binance answered HTTP 500/, url);
      }
    }));

  it('ohlc-range answers 502 when the second page fails, and serves nothing half-loaded', () =>
    withMarket({}, async (m) => {
      const end = Date.parse(START);
      const query =
        `symbol=BTCUSDT&interval=1m&start=${new Date(end - 1499 * 60_000).toISOString()}` +
        `&end=${new Date(end).toISOString()}&limit=2000`;
      m.binance.fail(500, undefined, { pathPrefix: '/api/v3/klines', skip: 1 });
      const failed = await m.get(`/api/v1/market/ohlc-range?${query}`);
      assert.equal(failed.status, 502);
      assert.equal(m.binance.countRequests('/api/v3/klines'), 2);
      const retried = await m.get<Row>(`/api/v1/market/ohlc-range?${query}`);
      assert.equal(retried.status, 200);
      assert.equal(retried.body.count, 1500);
      assert.equal(m.binance.countRequests('/api/v3/klines'), 4, 'the failed load cached nothing');
    }));

  it("answers 502 with the upstream's words when it fails with 5xx", () =>
    withMarket({}, async (m) => {
      m.binance.fail(
        500,
        { code: -1000, msg: 'An unknown error occurred while processing the request.' },
        { pathPrefix: '/api/v3/depth' },
      );
      const failed = await m.get('/api/v1/market/orderbook?symbol=BTCUSDT');
      assert.equal(failed.status, 502);
      assert.deepEqual(failed.body, {
        detail: 'Binance answered HTTP 500: An unknown error occurred while processing the request. (code -1000)',
      });
      m.coingecko.fail(503, { error: 'Service Unavailable' });
      const top = await m.get('/api/v1/market/top');
      assert.equal(top.status, 502);
      assert.deepEqual(top.body, { detail: 'CoinGecko answered HTTP 503: Service Unavailable' });
    }));

  it('answers 504 when the upstream is slower than the timeout', () =>
    withMarket({ env: { MARKET_UPSTREAM_TIMEOUT_MS: '300' } }, async (m) => {
      assert.equal((await m.get('/api/v1/market/symbols')).status, 200);
      m.binance.delay(1_000, { pathPrefix: '/api/v3/klines' });
      const slow = await m.get('/api/v1/market/ohlc?symbol=BTCUSDT');
      assert.equal(slow.status, 504);
      assert.deepEqual(slow.body, { detail: 'Binance did not answer within 300 ms' });
      m.coingecko.delay(1_000, { pathPrefix: '/global' });
      assert.equal((await m.get('/api/v1/market/stats')).status, 504);
    }));

  it('answers 503 when the upstream cannot be reached', async () =>
    withMarket({ env: { BINANCE_API_URL: `http://127.0.0.1:${await closedPort()}` } }, async (m) => {
      const down = await m.get('/api/v1/market/prices/BTCUSDT');
      assert.equal(down.status, 503);
      assert.deepEqual(down.body, { detail: 'Binance is unreachable' });
      const { body } = await m.get<{ upstreams: Record<string, Row> }>('/api/v1/market/status');
      assert.equal(body.upstreams.binance!.used_weight_1m, 0, 'calls that never arrived cost no weight');
      assert.equal(body.upstreams.binance!.last_error, 'Binance is unreachable');
    }));

  it('pauses calls for 30 s after five failures in a row', () =>
    withMarket({}, async (m, clock) => {
      assert.equal((await m.get('/api/v1/market/symbols')).status, 200);
      m.binance.fail(500, undefined, { pathPrefix: '/api/v3/klines', times: 5 });
      for (let i = 0; i < 5; i++) assert.equal((await m.get('/api/v1/market/ohlc?symbol=BTCUSDT')).status, 502);
      const seen = binanceCalls(m);
      const paused = await m.get('/api/v1/market/ohlc?symbol=BTCUSDT');
      assert.equal(paused.status, 503);
      assert.equal(paused.headers['retry-after'], '30');
      assert.equal(binanceCalls(m), seen);
      clock.advance(30_001);
      assert.equal((await m.get('/api/v1/market/ohlc?symbol=BTCUSDT')).status, 200);
    }));

  it('pauses CoinGecko after its 429 too', () =>
    withMarket({}, async (m, clock) => {
      m.coingecko.fail(429, undefined, { retryAfter: 60 });
      const limited = await m.get('/api/v1/market/top');
      assert.equal(limited.status, 503);
      assert.equal(limited.headers['retry-after'], '60');
      assert.equal((await m.get('/api/v1/market/stats')).status, 503);
      assert.equal(m.coingecko.requests.length, 1);
      clock.advance(60_001);
      assert.equal((await m.get('/api/v1/market/top')).status, 200);
    }));
});

describe('stale answers', () => {
  it('serves the last answer flagged stale with its age while the upstream fails, up to 2 minutes', () =>
    withMarket({}, async (m, clock) => {
      const fresh = await m.get<Row[]>('/api/v1/market/ticker?limit=2');
      assert.equal(fresh.body[0]!.stale, false);

      clock.advance(10_000);
      m.binance.fail(500, undefined, { pathPrefix: '/api/v3/ticker/24hr', times: 2 });
      const stale = await m.get<Row[]>('/api/v1/market/ticker?limit=2');
      assert.equal(stale.status, 200);
      assert.deepEqual(
        stale.body.map((r) => [r.symbol, r.price, r.stale, r.age_seconds]),
        [
          ['ETHUSDT', 3200, true, 10],
          ['BTCUSDT', 65000, true, 10],
        ],
      );
      assert.equal(stale.body[0]!.updated_at, START);
      const movers = await m.get<Row>('/api/v1/market/movers');
      assert.equal(movers.body.stale, true);
      assert.equal(movers.body.age_seconds, 10);

      clock.advance(111_000);
      m.binance.fail(500, undefined, { pathPrefix: '/api/v3/ticker/24hr' });
      const tooOld = await m.get('/api/v1/market/ticker?limit=2');
      assert.equal(tooOld.status, 502, 'past the 2-minute bound nothing is served');
    }));

  it('serves stale answers without calling while the circuit is open', () =>
    withMarket({}, async (m, clock) => {
      assert.equal((await m.get('/api/v1/market/ohlc?symbol=BTCUSDT&interval=1m')).status, 200);
      clock.advance(6_000);
      m.binance.fail(429, undefined, { retryAfter: 60 });
      const first = await m.get<Row>('/api/v1/market/ohlc?symbol=BTCUSDT&interval=1m');
      assert.equal(first.status, 200);
      assert.equal(first.body.stale, true);
      const seen = binanceCalls(m);
      clock.advance(30_000);
      const later = await m.get<Row>('/api/v1/market/ohlc?symbol=BTCUSDT&interval=1m&limit=5');
      assert.equal(later.body.stale, true);
      assert.equal(later.body.age_seconds, 36);
      assert.equal(binanceCalls(m), seen);
      const { body } = await m.get<{ caches: Row[] }>('/api/v1/market/status');
      assert.deepEqual(
        body.caches.find((c) => c.key === 'candles:BTCUSDT:1m'),
        { key: 'candles:BTCUSDT:1m', age_seconds: 36, ttl_seconds: 5, fresh: false },
      );
    }));
});

describe('how upstream failures are logged', () => {
  type Line = Record<string, unknown>;
  const WARN = 40;
  const ERROR = 50;
  const failureLines = (m: MarketHarness) =>
    m.logLines().filter((l) => l.msg === 'request failed' || typeof l.dependency === 'string');

  it('an unreachable venue is one warning per request naming it and the failure, without a stack or its address', async () => {
    const port = await closedPort();
    await withMarket({ env: { BINANCE_API_URL: `http://127.0.0.1:${port}` } }, async (m) => {
      // Five refused calls in a row open the breaker; the sixth is refused before it is sent.
      for (let i = 0; i < 6; i++) assert.equal((await m.get('/api/v1/market/prices/BTCUSDT')).status, 503);
      const lines = failureLines(m);
      assert.deepEqual(
        lines.map((l: Line) => [l.level, l.dependency, l.failure, l.code, l.status]),
        [
          ...Array.from({ length: 5 }, () => [WARN, 'Binance', 'refused', 'ECONNREFUSED', 503]),
          [WARN, 'binance', 'breaker_open', undefined, 503],
        ],
      );
      assert.equal(lines[0]!.msg, 'Binance unavailable (refused): answering 503');
      assert.ok(!m.logLines().some((l) => (l.level as number) >= ERROR), 'nothing at error level');
      assert.ok(!m.logText().includes('"stack"'), 'no stack');
      assert.ok(!m.logText().includes(`127.0.0.1:${port}`), "the venue's address is not logged");
    });
  });

  it('a venue slower than the bound is a warning too (timeout)', () =>
    withMarket({ env: { MARKET_UPSTREAM_TIMEOUT_MS: '300' } }, async (m) => {
      m.binance.delay(1_000, { pathPrefix: '/api/v3/exchangeInfo' });
      assert.equal((await m.get('/api/v1/market/symbols')).status, 504);
      assert.deepEqual(
        failureLines(m).map((l: Line) => [l.level, l.dependency, l.failure, l.status]),
        [[WARN, 'Binance', 'timeout', 504]],
      );
      assert.ok(!m.logText().includes('"stack"'));
    }));

  it("a venue's own 502/503/504 is a warning too (venue_5xx); its 500 stays an error with its stack", () =>
    withMarket({}, async (m) => {
      m.binance.fail(503, { code: -1008, msg: 'Server is currently overloaded with other requests.' });
      m.coingecko.fail(502, { error: 'Bad Gateway' });
      assert.equal((await m.get('/api/v1/market/symbols')).status, 502);
      assert.equal((await m.get('/api/v1/market/top')).status, 502);
      m.binance.fail(504, undefined, { pathPrefix: '/api/v3/depth' });
      assert.equal((await m.get('/api/v1/market/orderbook?symbol=BTCUSDT')).status, 502);
      assert.deepEqual(
        failureLines(m).map((l: Line) => [l.level, l.msg, l.dependency, l.failure, l.code, l.status]),
        [
          [WARN, 'Binance unavailable (venue_5xx): answering 502', 'Binance', 'venue_5xx', 'HTTP 503', 502],
          [WARN, 'CoinGecko unavailable (venue_5xx): answering 502', 'CoinGecko', 'venue_5xx', 'HTTP 502', 502],
          [WARN, 'Binance unavailable (venue_5xx): answering 502', 'Binance', 'venue_5xx', 'HTTP 504', 502],
        ],
      );
      assert.ok(!m.logText().includes('"stack"'), 'no stack');

      m.binance.fail(500, undefined, { pathPrefix: '/api/v3/depth' });
      assert.equal((await m.get('/api/v1/market/orderbook?symbol=ETHUSDT')).status, 502);
      const last = failureLines(m).at(-1)!;
      assert.deepEqual([last.level, last.msg], [ERROR, 'request failed']);
      assert.match(String((last.err as { stack?: string }).stack), /Binance answered HTTP 500[\s\S]*\n\s+at /);
    }));

  it('a failed call that no socket failure explains stays an error with its stack', () =>
    // The test network guard refuses the connection inside this process, with no socket code: as a
    // TypeError of our own would, it answers as before but is logged as a bug, not as an outage.
    withMarket({ env: { BINANCE_API_URL: 'http://192.0.2.1' } }, async (m) => {
      assert.equal((await m.get('/api/v1/market/prices/BTCUSDT')).status, 503);
      const lines = failureLines(m);
      assert.deepEqual(
        lines.map((l: Line) => [l.level, l.msg]),
        [[ERROR, 'request failed']],
      );
      assert.match(String((lines[0]!.err as { stack?: string }).stack), /fetch failed[\s\S]*\n\s+at /);
    }));
});
