// Tickers, prices, symbols: what a client sees when Binance answers normally, and every bound.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { assertFresh, assertIssues, startMarket, type MarketHarness } from './market-fixtures.ts';

type Row = Record<string, unknown>;

/** The fake's trading pairs that have a USDT value, by 24 h quote volume in USDT. */
const BY_USDT_VOLUME = [
  'ETHUSDT',
  'BTCUSDT',
  'SOLUSDT',
  'ETHBTC',
  'DOGEUSDT',
  'BNBUSDT',
  'XRPUSDT',
  'ADAUSDT',
  'TRXUSDT',
  'AVAXUSDT',
  'LTCUSDT',
  'LINKUSDT',
  'DOTUSDT',
  'BNBBTC',
  'SOLBTC',
];

describe('market tickers and prices', () => {
  let m: MarketHarness;
  before(async () => {
    // A clock that stands still keeps every cached answer fresh, so upstream calls can be counted.
    m = await startMarket({ clock: fixedClock(new Date()) });
  });
  after(() => m.stop());

  describe('GET /api/v1/market/ticker', () => {
    it('answers the most traded pairs by USDT quote volume, 24hr by default, without credentials', async () => {
      const { status, body } = await m.get<Row[]>('/api/v1/market/ticker');
      assert.equal(status, 200);
      // 20 by default; the fake has only 15 pairs whose quote asset has a USDT price.
      assert.deepEqual(
        body.map((r) => r.symbol),
        BY_USDT_VOLUME,
      );
      const btc = body.find((r) => r.symbol === 'BTCUSDT')!;
      assert.equal(btc.base, 'BTC');
      assert.equal(btc.quote, 'USDT');
      assert.equal(btc.price, 65000);
      assert.equal(btc.change_percent, 2.5);
      assert.equal(btc.volume, 12000);
      assert.equal(btc.quote_volume, 780000000);
      assert.equal(btc.trades, 1_800_000);
      for (const key of ['open', 'high', 'low', 'change', 'bid', 'ask', 'weighted_avg_price'])
        assert.equal(typeof btc[key], 'number', key);
      assert.ok(Date.parse(String(btc.close_time)) - Date.parse(String(btc.open_time)) === 86_400_000);
      for (const row of body) assertFresh(row);
    });

    it('takes limit', async () => {
      const { status, body } = await m.get<Row[]>('/api/v1/market/ticker?limit=3');
      assert.equal(status, 200);
      assert.deepEqual(
        body.map((r) => r.symbol),
        BY_USDT_VOLUME.slice(0, 3),
      );
    });

    it('answers the symbols asked for in any accepted form, in venue form and in that order', async () => {
      const { status, body } = await m.get<Row[]>(
        '/api/v1/market/ticker?symbols=btc/usdt,ETH-usdt,solbtc,BTCUSDT&limit=1',
      );
      assert.equal(status, 200);
      assert.deepEqual(
        body.map((r) => [r.symbol, r.base, r.quote]),
        [
          ['BTCUSDT', 'BTC', 'USDT'],
          ['ETHUSDT', 'ETH', 'USDT'],
          ['SOLBTC', 'SOL', 'BTC'],
        ],
      );
    });

    it('with type=price answers last prices only', async () => {
      const { status, body } = await m.get<Row[]>('/api/v1/market/ticker?type=price&symbols=ETHBTC,XRPUSDT');
      assert.equal(status, 200);
      assert.deepEqual(
        body.map((r) => [r.symbol, r.price]),
        [
          ['ETHBTC', 0.049],
          ['XRPUSDT', 0.52],
        ],
      );
      assert.ok(!('change_percent' in body[0]!) && !('volume' in body[0]!));
      assertFresh(body[0]!);
      const top = await m.get<Row[]>('/api/v1/market/ticker?type=price&limit=2');
      assert.deepEqual(
        top.body.map((r) => r.symbol),
        ['ETHUSDT', 'BTCUSDT'],
      );
    });

    it('refuses limit outside 1..100 and an unknown type, all at once', async () => {
      assertIssues(await m.get('/api/v1/market/ticker?limit=0'), [
        { type: 'greater_than_equal', loc: ['query', 'limit'], ctx: { ge: 1 } },
      ]);
      assertIssues(await m.get('/api/v1/market/ticker?limit=101'), [
        { type: 'less_than_equal', loc: ['query', 'limit'], ctx: { le: 100 } },
      ]);
      assertIssues(await m.get('/api/v1/market/ticker?limit=ten'), [{ type: 'int_parsing', loc: ['query', 'limit'] }]);
      const issues = assertIssues(await m.get('/api/v1/market/ticker?type=1h&limit=0'), [
        { type: 'enum', loc: ['query', 'type'], ctx: { expected: "'24hr' or 'price'" } },
        { type: 'greater_than_equal', loc: ['query', 'limit'] },
      ]);
      assert.equal(issues[0]!.msg, "Input should be '24hr' or 'price'");
      assert.equal(issues[0]!.input, '1h');
    });

    it('refuses an empty symbols list or more than 100 symbols', async () => {
      assertIssues(await m.get('/api/v1/market/ticker?symbols='), [
        { type: 'string_too_short', loc: ['query', 'symbols'] },
      ]);
      assertIssues(await m.get('/api/v1/market/ticker?symbols=,%20,'), [
        { type: 'value_error', loc: ['query', 'symbols'] },
      ]);
      const many = Array.from({ length: 101 }, (_, i) => `S${i}USDT`).join(',');
      assertIssues(await m.get(`/api/v1/market/ticker?symbols=${many}`), [
        { type: 'value_error', loc: ['query', 'symbols'] },
      ]);
    });

    it('answers 404 naming the symbols the venue does not list', async () => {
      const { status, body } = await m.get('/api/v1/market/ticker?symbols=BTCUSDT,NOPEUSDT,FOO/BAR');
      assert.equal(status, 404);
      assert.deepEqual(body, { detail: 'Unknown symbols: NOPEUSDT, FOO/BAR' });
    });
  });

  describe('GET /api/v1/market/prices', () => {
    it('answers the prices of the symbols asked for, from REST while the stream is not running', async () => {
      const { status, body } = await m.get<{ prices: Record<string, Row>; count: number } & Row>(
        '/api/v1/market/prices?symbols=BTCUSDT,eth/btc',
      );
      assert.equal(status, 200);
      assert.equal(body.count, 2);
      assert.deepEqual(Object.keys(body.prices), ['BTCUSDT', 'ETHBTC']);
      assert.deepEqual(
        { ...body.prices.ETHBTC, updated_at: undefined },
        { symbol: 'ETHBTC', base: 'ETH', quote: 'BTC', price: 0.049, feed: 'rest', updated_at: undefined },
      );
      assertFresh(body);
    });

    it('requires symbols and answers 404 for an unknown one', async () => {
      assertIssues(await m.get('/api/v1/market/prices'), [{ type: 'missing', loc: ['query', 'symbols'] }]);
      const unknown = await m.get('/api/v1/market/prices?symbols=XYZUSDT');
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { detail: 'Unknown symbol: XYZUSDT' });
    });
  });

  describe('GET /api/v1/market/prices/live', () => {
    it('answers every trading pair from the REST fallback when the stream is down', async () => {
      const { status, body } = await m.get<
        { prices: Record<string, Row>; count: number; feed: string; stream: Row } & Row
      >('/api/v1/market/prices/live');
      assert.equal(status, 200);
      assert.equal(body.count, 18);
      assert.equal(body.feed, 'rest');
      assert.deepEqual(body.stream, { status: 'idle', live: false, last_message_at: null });
      assert.equal(body.prices.BTCEUR!.price, 60000);
      assertFresh(body);
    });

    it('answers the symbols asked for, and 404 for unknown ones', async () => {
      const { body } = await m.get<{ prices: Record<string, Row>; count: number }>(
        '/api/v1/market/prices/live?symbols=sol-usdt',
      );
      assert.deepEqual(Object.keys(body.prices), ['SOLUSDT']);
      assert.equal((await m.get('/api/v1/market/prices/live?symbols=BTC-XYZ')).status, 404);
      assertIssues(await m.get('/api/v1/market/prices/live?symbols='), [
        { type: 'string_too_short', loc: ['query', 'symbols'] },
      ]);
    });
  });

  describe('GET /api/v1/market/prices/{symbol}', () => {
    it('answers one price for any accepted form, ignoring the reserved exchange parameter', async () => {
      for (const form of ['BTCUSDT', 'btc-usdt', 'BTC%2FUSDT']) {
        const { status, body } = await m.get<Row>(`/api/v1/market/prices/${form}?exchange=whatever`);
        assert.equal(status, 200, form);
        assert.equal(body.symbol, 'BTCUSDT');
        assert.equal(body.base, 'BTC');
        assert.equal(body.quote, 'USDT');
        assert.equal(body.price, 65000);
        assert.equal(body.exchange, 'binance');
        assertFresh(body);
      }
    });

    it('answers 404 for a symbol the venue does not list, and 422 for an overlong one', async () => {
      const { status, body } = await m.get('/api/v1/market/prices/DOESNOTEXIST');
      assert.equal(status, 404);
      assert.deepEqual(body, { detail: 'Unknown symbol: DOESNOTEXIST' });
      assert.equal((await m.get('/api/v1/market/prices/BTC_USDT')).status, 404);
      assertIssues(await m.get(`/api/v1/market/prices/${'A'.repeat(41)}`), [
        { type: 'string_too_long', loc: ['path', 'symbol'] },
      ]);
    });
  });

  describe('GET /api/v1/market/symbols', () => {
    it('answers the trading pairs with base and quote from exchangeInfo', async () => {
      const { status, body } = await m.get<{ symbols: Row[]; count: number; quote_assets: string[] } & Row>(
        '/api/v1/market/symbols',
      );
      assert.equal(status, 200);
      assert.equal(body.count, 18);
      assert.deepEqual(body.quote_assets, ['BTC', 'EUR', 'USDC', 'USDT']);
      assert.deepEqual(body.symbols[12], { symbol: 'ETHBTC', base: 'ETH', quote: 'BTC', status: 'TRADING' });
      assertFresh(body);
    });
  });

  it('answers every request above from one exchangeInfo call (cached 1 h)', () => {
    assert.equal(m.binance.countRequests('/api/v3/exchangeInfo'), 1);
  });
});
