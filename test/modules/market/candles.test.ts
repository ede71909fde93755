// Candlesticks and order books: ohlc, ohlc-range (paging Binance past its 1000-candle pages), the
// candles() function other modules use, and orderbook.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../../src/platform/http/errors.ts';
import { assertFresh, assertIssues, startMarket, type MarketHarness } from './market-fixtures.ts';

const MINUTE = 60_000;
const INTERVALS = ['1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '6h', '8h', '12h', '1d', '3d', '1w', '1M'];

interface Candle {
  open_time: string;
  close_time: string;
  timestamp: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  quote_volume: number;
  trades: number;
}
type CandleBody = {
  symbol: string;
  base: string;
  quote: string;
  interval: string;
  candles: Candle[];
  count: number;
  truncated?: boolean;
} & Record<string, unknown>;

/** A closed 1m window of `minutes` candles ending ten minutes ago, as ISO strings and ms. */
function window(minutes: number) {
  const end = Math.floor(Date.now() / MINUTE) * MINUTE - 10 * MINUTE;
  const start = end - (minutes - 1) * MINUTE;
  return { start, end, query: `start=${new Date(start).toISOString()}&end=${new Date(end).toISOString()}` };
}

function assertContiguous(candles: { timestamp: number }[], stepMs: number): void {
  for (let i = 1; i < candles.length; i++)
    assert.equal(candles[i]!.timestamp - candles[i - 1]!.timestamp, stepMs, `gap at ${i}`);
}

describe('market candles and order books', () => {
  let m: MarketHarness;
  const klineCalls = () => m.binance.countRequests('/api/v3/klines');
  before(async () => {
    m = await startMarket();
  });
  after(() => m.stop());

  describe('GET /api/v1/market/ohlc', () => {
    it('answers the 100 most recent 1h candles by default, oldest first, as numbers', async () => {
      const { status, body } = await m.get<CandleBody>('/api/v1/market/ohlc?symbol=btc/usdt');
      assert.equal(status, 200);
      assert.equal(body.symbol, 'BTCUSDT');
      assert.equal(body.interval, '1h');
      assert.equal(body.count, 100);
      assertContiguous(body.candles, 60 * MINUTE);
      const last = body.candles.at(-1)!;
      assert.equal(last.timestamp, Math.floor(Date.now() / (60 * MINUTE)) * 60 * MINUTE);
      assert.equal(Date.parse(last.open_time), last.timestamp);
      assert.equal(Date.parse(last.close_time), last.timestamp + 60 * MINUTE - 1);
      for (const key of ['open', 'high', 'low', 'close', 'volume', 'quote_volume', 'trades'] as const)
        assert.equal(typeof last[key], 'number');
      assert.ok(last.high >= last.low);
      assertFresh(body);
      const call = m.binance.requests.find((r) => r.path === '/api/v3/klines')!;
      assert.equal(call.params.get('limit'), '1000');
    });

    it('accepts exactly the 15 intervals of the contract', async () => {
      for (const interval of INTERVALS) {
        const { status, body } = await m.get<CandleBody>(
          `/api/v1/market/ohlc?symbol=ETHUSDT&interval=${interval}&limit=2`,
        );
        assert.equal(status, 200, interval);
        assert.equal(body.interval, interval);
        assert.equal(body.count, 2);
      }
      for (const interval of ['1s', '2m', '1H', '1y', '']) {
        const issues = assertIssues(await m.get(`/api/v1/market/ohlc?symbol=ETHUSDT&interval=${interval}`), [
          { type: 'enum', loc: ['query', 'interval'] },
        ]);
        assert.equal(
          issues[0]!.ctx!.expected,
          "'1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '6h', '8h', '12h', '1d', '3d', '1w' or '1M'",
        );
      }
    });

    it('refuses limit outside 1..1000 and a missing symbol; answers 404 for an unknown symbol', async () => {
      assertIssues(await m.get('/api/v1/market/ohlc?symbol=ETHUSDT&limit=0'), [
        { type: 'greater_than_equal', loc: ['query', 'limit'], ctx: { ge: 1 } },
      ]);
      assertIssues(await m.get('/api/v1/market/ohlc?symbol=ETHUSDT&limit=1001'), [
        { type: 'less_than_equal', loc: ['query', 'limit'], ctx: { le: 1000 } },
      ]);
      assertIssues(await m.get('/api/v1/market/ohlc?limit=1001'), [
        { type: 'missing', loc: ['query', 'symbol'] },
        { type: 'less_than_equal', loc: ['query', 'limit'] },
      ]);
      const unknown = await m.get('/api/v1/market/ohlc?symbol=NOPE-USDT');
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { detail: 'Unknown symbol: NOPE-USDT' });
    });

    it('serves any limit of one pair and interval from one cached upstream call', async () => {
      const before = klineCalls();
      const a = await m.get<CandleBody>('/api/v1/market/ohlc?symbol=SOLUSDT&interval=4h&limit=1000');
      const b = await m.get<CandleBody>('/api/v1/market/ohlc?symbol=SOL-USDT&interval=4h&limit=7');
      assert.equal(a.body.count, 1000);
      assert.deepEqual(b.body.candles, a.body.candles.slice(-7));
      assert.equal(klineCalls() - before, 1);
    });
  });

  describe('GET /api/v1/market/ohlc-range', () => {
    it('pages the venue past 1000 candles to answer a 1500-candle window whole', async () => {
      const w = window(1500);
      const before = klineCalls();
      const { status, body } = await m.get<CandleBody>(
        `/api/v1/market/ohlc-range?symbol=BTCUSDT&interval=1m&${w.query}&limit=2000`,
      );
      assert.equal(status, 200);
      assert.equal(body.count, 1500);
      assert.equal(body.candles[0]!.timestamp, w.start);
      assert.equal(body.candles.at(-1)!.timestamp, w.end);
      assertContiguous(body.candles, MINUTE);
      assert.equal(body.truncated, false);
      assert.equal(body.limit, 2000);
      assert.equal(klineCalls() - before, 2);
      assertFresh(body);
    });

    it('answers the most recent candles of the window when it holds more than limit (default 1000)', async () => {
      const w = window(3000);
      const before = klineCalls();
      const capped = await m.get<CandleBody>(
        `/api/v1/market/ohlc-range?symbol=BTCUSDT&interval=1m&${w.query}&limit=1200`,
      );
      assert.equal(capped.body.count, 1200);
      assert.equal(capped.body.candles[0]!.timestamp, w.end - 1199 * MINUTE);
      assert.equal(capped.body.candles.at(-1)!.timestamp, w.end);
      assert.equal(capped.body.truncated, true);
      assert.equal(klineCalls() - before, 2);
      const byDefault = await m.get<CandleBody>(`/api/v1/market/ohlc-range?symbol=BTCUSDT&interval=1m&${w.query}`);
      assert.equal(byDefault.body.count, 1000);
      assert.equal(byDefault.body.limit, 1000);
      assert.equal(byDefault.body.candles[0]!.timestamp, w.end - 999 * MINUTE);
    });

    it('answers only candles opening inside the window, default interval 1h', async () => {
      const end = Date.UTC(2026, 0, 2, 5, 30);
      const start = Date.UTC(2026, 0, 1, 22, 15);
      const { body } = await m.get<CandleBody>(
        `/api/v1/market/ohlc-range?symbol=ETHUSDT&start=${new Date(start).toISOString()}&end=2026-01-02T06:30:00%2B01:00`,
      );
      assert.equal(body.interval, '1h');
      assert.deepEqual(
        body.candles.map((c) => c.open_time),
        [23, 24, 25, 26, 27, 28, 29].map((h) => new Date(Date.UTC(2026, 0, 1, h)).toISOString()),
      );
      assert.equal(body.end, new Date(end).toISOString());
      const naive = await m.get<CandleBody>(
        '/api/v1/market/ohlc-range?symbol=ETHUSDT&start=2026-01-01T22:15:00&end=2026-01-02T05:30:00',
      );
      assert.deepEqual(naive.body.candles, body.candles, 'a time without an offset is UTC');
    });

    it('requires start and end as ISO 8601 date-times, with start before end', async () => {
      assertIssues(await m.get('/api/v1/market/ohlc-range?symbol=BTCUSDT'), [
        { type: 'missing', loc: ['query', 'start'] },
        { type: 'missing', loc: ['query', 'end'] },
      ]);
      assertIssues(await m.get('/api/v1/market/ohlc-range?symbol=BTCUSDT&start=yesterday&end=2026-01-01T00:00:00Z'), [
        { type: 'datetime_from_date_parsing', loc: ['query', 'start'] },
      ]);
      const reversed = assertIssues(
        await m.get('/api/v1/market/ohlc-range?symbol=BTCUSDT&start=2026-01-02T00:00:00Z&end=2026-01-01T00:00:00Z'),
        [{ type: 'value_error', loc: ['query', 'end'] }],
      );
      assert.equal(reversed[0]!.msg, 'Value error, end must be after start');
      assertIssues(
        await m.get('/api/v1/market/ohlc-range?symbol=BTCUSDT&start=2026-01-01T00:00:00Z&end=2026-01-01T00:00:00Z'),
        [{ type: 'value_error', loc: ['query', 'end'] }],
      );
    });

    it('refuses limit outside 1..2000 and intervals outside the contract', async () => {
      const w = window(10);
      assertIssues(await m.get(`/api/v1/market/ohlc-range?symbol=BTCUSDT&${w.query}&limit=2001`), [
        { type: 'less_than_equal', loc: ['query', 'limit'], ctx: { le: 2000 } },
      ]);
      assertIssues(await m.get(`/api/v1/market/ohlc-range?symbol=BTCUSDT&${w.query}&limit=0`), [
        { type: 'greater_than_equal', loc: ['query', 'limit'], ctx: { ge: 1 } },
      ]);
      assertIssues(await m.get(`/api/v1/market/ohlc-range?symbol=BTCUSDT&${w.query}&interval=7m`), [
        { type: 'enum', loc: ['query', 'interval'] },
      ]);
      assert.equal((await m.get(`/api/v1/market/ohlc-range?symbol=BTCBTC&${w.query}`)).status, 404);
    });
  });

  describe('candles() for other modules', () => {
    it('answers the ohlc-range candles as plain numbers, and refuses what the route refuses', async () => {
      const market = m.modules.market;
      const w = window(30);
      const candles = await market.candles('eth-usdt', '1m', new Date(w.start), new Date(w.end));
      assert.equal(candles.length, 30);
      assert.equal(candles[0]!.openTime, w.start);
      assert.deepEqual(Object.keys(candles[0]!).sort(), ['close', 'high', 'low', 'open', 'openTime', 'volume']);
      assert.ok(candles.every((c) => typeof c.close === 'number' && c.high >= c.low));
      await assert.rejects(
        market.candles('ETHUSDT', '2m', new Date(w.start), new Date(w.end)),
        (e: unknown) => e instanceof AppError && e.status === 422,
      );
      await assert.rejects(
        market.candles('ETHUSDT', '1m', new Date(w.end), new Date(w.start)),
        (e: unknown) => e instanceof AppError && e.status === 422,
      );
      await assert.rejects(
        market.candles('NOPE', '1m', new Date(w.start), new Date(w.end)),
        (e: unknown) => e instanceof AppError && e.status === 404,
      );
    });
  });

  describe('GET /api/v1/market/orderbook', () => {
    it('answers 20 levels per side by default with spread and side volumes summed exactly', async () => {
      const { status, body } = await m.get<
        { bids: { price: number; quantity: number }[]; asks: { price: number; quantity: number }[] } & Record<
          string,
          unknown
        >
      >('/api/v1/market/orderbook?symbol=BTC-USDT');
      assert.equal(status, 200);
      assert.equal(body.symbol, 'BTCUSDT');
      assert.equal(body.depth, 20);
      assert.equal(body.bids.length, 20);
      assert.equal(body.asks.length, 20);
      assert.deepEqual(body.bids[0], { price: 64999.99, quantity: 0.5 });
      assert.deepEqual(body.asks[0], { price: 65000.01, quantity: 0.4 });
      assert.equal(body.best_bid, 64999.99);
      assert.equal(body.best_ask, 65000.01);
      assert.equal(body.mid_price, 65000);
      assert.equal(body.spread, 0.02);
      assert.equal(body.bid_volume, 57.5);
      assert.equal(body.ask_volume, 46);
      assertFresh(body);
      const call = m.binance.requests.find((r) => r.path === '/api/v3/depth')!;
      assert.equal(call.params.get('limit'), '100');
    });

    it('takes depth 5..100 and refuses the rest', async () => {
      const five = await m.get<{ bids: unknown[]; asks: unknown[] }>('/api/v1/market/orderbook?symbol=BTCUSDT&depth=5');
      assert.equal(five.body.bids.length, 5);
      const hundred = await m.get<{ bids: unknown[] }>('/api/v1/market/orderbook?symbol=BTCUSDT&depth=100');
      assert.equal(hundred.body.bids.length, 100);
      assertIssues(await m.get('/api/v1/market/orderbook?symbol=BTCUSDT&depth=4'), [
        { type: 'greater_than_equal', loc: ['query', 'depth'], ctx: { ge: 5 } },
      ]);
      assertIssues(await m.get('/api/v1/market/orderbook?symbol=BTCUSDT&depth=101'), [
        { type: 'less_than_equal', loc: ['query', 'depth'], ctx: { le: 100 } },
      ]);
      assertIssues(await m.get('/api/v1/market/orderbook'), [{ type: 'missing', loc: ['query', 'symbol'] }]);
      assert.equal((await m.get('/api/v1/market/orderbook?symbol=XXXUSDT')).status, 404);
    });
  });
});
