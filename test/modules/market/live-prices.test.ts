// Live prices: the mini-ticker WebSocket stream feeds the price map while the server listens; when it
// drops, prices come from REST until it is back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startBinanceWsFake, type BinanceWsFake } from '../../fakes/binance-ws.ts';
import { startMarket, waitFor, type MarketHarness } from './market-fixtures.ts';

type Row = Record<string, unknown>;
type Prices = { prices: Record<string, Row>; count: number; feed: string; stream: Row } & Row;

describe('live prices from the WebSocket stream', () => {
  let m: MarketHarness;
  let ws: BinanceWsFake;
  const live = async () => (await m.get<Prices>('/api/v1/market/prices/live')).body;
  const status = async () => (await m.get<{ status: string; live_stream: Row }>('/api/v1/market/status')).body;

  before(async () => {
    ws = await startBinanceWsFake();
    m = await startMarket({ env: { BINANCE_WS_URL: ws.url } });
    await m.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await m.stop();
    await ws.close();
  });

  it('subscribes to the all-market mini-ticker stream once the server listens', async () => {
    await waitFor(() => ws.connections === 1, 5_000, 'the stream connection');
    assert.deepEqual(ws.upgrades, ['/ws/!miniTicker@arr']);
  });

  it('serves prices/live, prices, prices/{symbol} and price tickers from the stream', async () => {
    // The stream says 66,000 while the REST price list still says 65,000.
    ws.setPrice('BTCUSDT', '66000.00');
    ws.push(['BTCUSDT', 'ETHUSDT']);
    await waitFor(async () => (await live()).feed === 'stream', 5_000, 'the first stream message');

    const all = await live();
    assert.equal(all.count, 2, 'without symbols: every pair the stream has delivered');
    assert.deepEqual(
      { ...all.prices.BTCUSDT, updated_at: undefined },
      { symbol: 'BTCUSDT', base: 'BTC', quote: 'USDT', price: 66000, feed: 'stream', updated_at: undefined },
    );
    assert.equal(all.stream.status, 'connected');
    assert.equal(all.stream.live, true);

    const some = (await m.get<Prices>('/api/v1/market/prices?symbols=BTCUSDT,SOLUSDT')).body;
    assert.deepEqual([some.prices.BTCUSDT!.price, some.prices.BTCUSDT!.feed], [66000, 'stream']);
    assert.deepEqual(
      [some.prices.SOLUSDT!.price, some.prices.SOLUSDT!.feed],
      [150, 'rest'],
      'a pair the stream has not sent comes from REST',
    );

    const one = (await m.get<Row>('/api/v1/market/prices/btc-usdt')).body;
    assert.deepEqual([one.price, one.feed], [66000, 'stream']);
    const ticker = (await m.get<Row[]>('/api/v1/market/ticker?type=price&symbols=BTCUSDT')).body;
    assert.equal(ticker[0]!.price, 66000);

    const report = await status();
    assert.equal(report.status, 'ok');
    assert.equal(report.live_stream.status, 'connected');
    assert.equal(report.live_stream.serving, 'stream');
    assert.equal(report.live_stream.symbols, 2);
  });

  it('falls back to REST while the stream is down and reconnects with back-off', async () => {
    ws.refuseConnections(1);
    ws.dropConnections();
    await waitFor(async () => (await live()).feed === 'rest', 5_000, 'the fallback');

    const one = (await m.get<Row>('/api/v1/market/prices/BTCUSDT')).body;
    assert.deepEqual([one.price, one.feed], [65000, 'rest']);
    const down = await status();
    assert.equal(down.status, 'degraded');
    assert.equal(down.live_stream.serving, 'rest');
    assert.equal(down.live_stream.status, 'reconnecting');
    assert.ok(down.live_stream.next_attempt_at !== null);

    // The first attempt is refused (HTTP 503); the second, after a longer pause, is accepted.
    await waitFor(() => ws.accepted === 2, 8_000, 'the reconnect');
    assert.equal(ws.upgrades.length, 3);
    ws.push(['BTCUSDT']);
    await waitFor(
      async () => (await m.get<Row>('/api/v1/market/prices/BTCUSDT')).body.feed === 'stream',
      5_000,
      'stream prices again',
    );
    const back = await status();
    assert.equal(back.live_stream.status, 'connected');
    assert.equal(back.live_stream.reconnects, 2);

    // Two failed attempts, one warning, which says what to do when the machine is offline.
    const warnings = m
      .logLines()
      .filter((line) => line.level === 40 && String(line.msg).startsWith('market price stream'));
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(String(warnings[0]!.msg), /MARKET_DATA_SOURCE=simulated.*MARKET_LIVE_STREAM=false/);
    assert.ok(m.logLines().some((line) => line.level === 30 && line.msg === 'market price stream connected again'));
  });
});

describe('live price stream off', () => {
  it('never connects under inject(), and not at all with MARKET_LIVE_STREAM=false', async () => {
    const ws = await startBinanceWsFake();
    const injected = await startMarket({ env: { BINANCE_WS_URL: ws.url } });
    const disabled = await startMarket({ env: { BINANCE_WS_URL: ws.url, MARKET_LIVE_STREAM: 'false' } });
    try {
      await disabled.app.listen({ host: '127.0.0.1', port: 0 });
      assert.equal((await injected.get('/api/v1/market/prices/BTCUSDT')).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(ws.upgrades.length, 0);
      const idle = (await injected.get<{ live_stream: Row }>('/api/v1/market/status')).body.live_stream;
      assert.deepEqual([idle.enabled, idle.status, idle.serving], [true, 'idle', 'rest']);
      const off = (await disabled.get<{ status: string; live_stream: Row }>('/api/v1/market/status')).body;
      assert.deepEqual([off.live_stream.enabled, off.live_stream.status, off.status], [false, 'disabled', 'ok']);
      assert.equal((await disabled.get<Prices>('/api/v1/market/prices/live?symbols=BTCUSDT')).body.feed, 'rest');
    } finally {
      await injected.stop();
      await disabled.stop();
      await ws.close();
    }
  });
});
