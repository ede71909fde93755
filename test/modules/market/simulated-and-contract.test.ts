// MARKET_DATA_SOURCE=simulated answers every operation offline, saying so in every answer; and the
// OpenAPI document types every market answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSimulatedSpotSource } from '../../../src/modules/market/adapters/simulated-market-source.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { closedPort } from '../../helpers/ports.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { request } from './market-fixtures.ts';

const OPERATIONS = [
  '/api/v1/market/ticker',
  '/api/v1/market/prices',
  '/api/v1/market/prices/live',
  '/api/v1/market/prices/{symbol}',
  '/api/v1/market/top',
  '/api/v1/market/status',
  '/api/v1/market/symbols',
  '/api/v1/market/ohlc',
  '/api/v1/market/ohlc-range',
  '/api/v1/market/orderbook',
  '/api/v1/market/stats',
  '/api/v1/market/movers',
  '/api/v1/market/heatmap',
  '/api/v1/market/volume-distribution',
  '/api/v1/market/activity',
  '/api/v1/market/trending',
];

describe('simulated market source', () => {
  let t: TestApp;
  before(async () => {
    // Real upstream URLs that are unreachable here: the simulated source must not need them.
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    t = await buildTestApp({
      env: { MARKET_DATA_SOURCE: 'simulated', BINANCE_API_URL: nowhere, COINGECKO_API_URL: nowhere },
    });
  });
  after(() => t.close());

  it('answers every operation with "source": "simulated"', async () => {
    const end = new Date();
    const start = new Date(end.getTime() - 3_600_000 * 10);
    const urls = [
      '/api/v1/market/ticker',
      '/api/v1/market/ticker?type=price&symbols=BTCUSDT',
      '/api/v1/market/prices?symbols=BTC/USDT',
      '/api/v1/market/prices/live',
      '/api/v1/market/prices/eth-usdt',
      '/api/v1/market/top?limit=3',
      '/api/v1/market/symbols',
      '/api/v1/market/ohlc?symbol=BTCUSDT&limit=5',
      `/api/v1/market/ohlc-range?symbol=BTCUSDT&start=${start.toISOString()}&end=${end.toISOString()}`,
      '/api/v1/market/orderbook?symbol=BTCUSDT&depth=5',
      '/api/v1/market/stats',
      '/api/v1/market/movers',
      '/api/v1/market/heatmap',
      '/api/v1/market/volume-distribution',
      '/api/v1/market/activity',
      '/api/v1/market/trending?limit=5',
      '/api/v1/market/status',
    ];
    for (const url of urls) {
      const { status, body } = await request<Record<string, unknown> | Record<string, unknown>[]>(t.app, url);
      assert.equal(status, 200, `${url}: ${JSON.stringify(body)}`);
      const rows = Array.isArray(body) ? body : [body];
      assert.ok(rows.length > 0, url);
      for (const row of rows) assert.equal(row.source, 'simulated', url);
    }
    const live = await request<{ prices: Record<string, { feed: string }> }>(
      t.app,
      '/api/v1/market/prices?symbols=BTCUSDT',
    );
    assert.equal(live.body.prices.BTCUSDT!.feed, 'simulated');
    const range = await request<{ count: number }>(
      t.app,
      `/api/v1/market/ohlc-range?symbol=BTCUSDT&start=${start.toISOString()}&end=${end.toISOString()}`,
    );
    assert.equal(range.body.count, 10);
    assert.equal((await request(t.app, '/api/v1/market/prices/DOTUSDT')).status, 404);
  });

  it('gives the same data for the same moment, and moves with time', async () => {
    const at = '2026-05-01T12:00:00.000Z';
    const a = createSimulatedSpotSource(fixedClock(at));
    const b = createSimulatedSpotSource(fixedClock(at));
    assert.deepEqual(await a.tickers(), await b.tickers());
    assert.deepEqual(await a.klines('BTCUSDT', '1h', { limit: 3 }), await b.klines('BTCUSDT', '1h', { limit: 3 }));
    const later = createSimulatedSpotSource(fixedClock('2026-05-01T15:00:00.000Z'));
    assert.notDeepEqual(await a.prices(), await later.prices());
  });

  it('types the answer of every market operation in the OpenAPI document', async () => {
    const doc = (
      await request<{
        paths: Record<
          string,
          Record<
            string,
            {
              tags: string[];
              responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
            }
          >
        >;
      }>(t.app, '/openapi.json')
    ).body;
    // The price stream answers text/event-stream (test/modules/streams/openapi.test.ts checks its events).
    const paths = Object.keys(doc.paths).filter(
      (p) => p.startsWith('/api/v1/market/') && p !== '/api/v1/market/stream',
    );
    assert.deepEqual(paths.sort(), [...OPERATIONS].sort());
    for (const path of OPERATIONS) {
      const operation = doc.paths[path]!.get!;
      assert.deepEqual(operation.tags, ['market'], path);
      const schema = operation.responses['200']!.content!['application/json']!.schema;
      const typed = schema.type === 'array' ? (schema.items as Record<string, unknown>) : schema;
      assert.equal(typed.type, 'object', path);
      assert.ok(Object.keys(typed.properties as object).length > 3, `${path} lists its fields`);
      assert.ok(
        (typed.required as string[]).includes('source') || path === '/api/v1/market/status',
        `${path} says where its data came from`,
      );
      for (const status of ['502', '503', '504'])
        if (path !== '/api/v1/market/status') assert.ok(operation.responses[status], `${path} documents ${status}`);
    }
  });
});
