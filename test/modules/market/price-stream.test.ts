// GET /api/v1/market/stream: a snapshot, then price events from Binance's WebSocket stream (the
// loopback fake), throttled per pair; REST polling while the stream is down; pings; shutdown.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startBinanceWsFake, type BinanceWsFake } from '../../fakes/binance-ws.ts';
import { follow } from '../../helpers/sse-client.ts';
import { assertIssues, startMarket, waitFor, type MarketHarness } from './market-fixtures.ts';

type Price = { symbol: string; price: number; ts: string; source: string };

/** The raw text of a stream until `until` matches it (or the time is up). */
async function rawStream(
  url: string,
  until: RegExp,
  timeoutMs = 5_000,
): Promise<{ status: number; headers: Headers; text: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const response = await fetch(url, { signal: controller.signal });
  let text = '';
  try {
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (until.test(text)) break;
    }
  } catch {
    // aborted: the caller checks what arrived
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { status: response.status, headers: response.headers, text };
}

describe('the market price stream', () => {
  let m: MarketHarness;
  let ws: BinanceWsFake;
  let base: string;

  before(async () => {
    ws = await startBinanceWsFake();
    m = await startMarket({ env: { BINANCE_WS_URL: ws.url, STREAM_PING_SECONDS: '1', STREAM_RETRY_MS: '1500' } });
    base = await m.app.listen({ host: '127.0.0.1', port: 0 });
    await waitFor(() => ws.connections === 1, 5_000, 'the upstream stream');
  });
  after(async () => {
    await m.stop();
    await ws.close();
  });

  it('opens with retry and a snapshot of the requested pairs, then sends price events from the stream', async () => {
    const raw = await rawStream(`${base}/api/v1/market/stream?symbols=btc-usdt,ETHUSDT`, /event: snapshot[\s\S]*\n\n/);
    assert.equal(raw.status, 200);
    assert.match(raw.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(raw.headers.get('cache-control'), 'no-store');
    assert.equal(raw.headers.get('x-content-type-options'), 'nosniff');
    assert.ok(raw.text.startsWith('retry: 1500\n\n'), raw.text.slice(0, 40));

    const stream = follow(`${base}/api/v1/market/stream?symbols=btc-usdt,ETHUSDT`);
    try {
      const snapshot = await stream.waitFor((e) => e.type === 'snapshot', 5_000, 'the snapshot');
      const prices = snapshot.data.prices as Price[];
      assert.deepEqual(
        prices.map((p) => p.symbol),
        ['BTCUSDT', 'ETHUSDT'],
      );
      assert.equal(snapshot.data.count, 2);
      for (const price of prices) {
        assert.equal(typeof price.price, 'number');
        assert.match(price.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.ok(['stream', 'rest'].includes(price.source));
      }
      assert.equal(stream.events[0]!.type, 'snapshot', 'the snapshot comes first');

      ws.setPrice('BTCUSDT', '70123.45');
      ws.setPrice('SOLUSDT', '151.00');
      ws.push(['BTCUSDT', 'SOLUSDT']);
      const moved = await stream.waitFor(
        (e) => e.type === 'price' && e.data.price === 70123.45,
        5_000,
        'the BTCUSDT price',
      );
      assert.deepEqual(Object.keys(moved.data).sort(), ['price', 'source', 'symbol', 'ts']);
      assert.equal(moved.data.symbol, 'BTCUSDT');
      assert.equal(moved.data.source, 'stream');
      assert.ok(
        !stream.events.some((e) => e.type === 'price' && e.data.symbol === 'SOLUSDT'),
        'pairs not asked for are not sent',
      );
    } finally {
      stream.close();
    }
  });

  it('sends at most one price per pair per 250 ms, the newest winning', async () => {
    const stream = follow(`${base}/api/v1/market/stream?symbols=ETHUSDT`);
    try {
      await stream.waitFor((e) => e.type === 'snapshot');
      // Five moves in one burst: the first goes out, the others wait for the pair's 250 ms, and only
      // the newest of them follows.
      for (const price of ['3001', '3002', '3003', '3004', '3005']) {
        ws.setPrice('ETHUSDT', price);
        ws.push(['ETHUSDT']);
      }
      await stream.waitFor((e) => e.type === 'price' && e.data.price === 3005, 5_000, 'the newest price');
      const sent = stream.events.filter((e) => e.type === 'price').map((e) => e.data.price);
      assert.ok(sent.length <= 2, `at most the first and the newest: ${JSON.stringify(sent)}`);
      assert.equal(sent.at(-1), 3005);
    } finally {
      stream.close();
    }
  });

  it('answers 422 in the contract shape for unknown pairs or more than 200, before any stream opens', async () => {
    const unknown = await m.get('/api/v1/market/stream?symbols=BTCUSDT,NOPEUSDT');
    const [issue] = assertIssues(unknown, [{ type: 'value_error', loc: ['query', 'symbols'] }]);
    assert.match(issue!.msg, /NOPEUSDT/);
    const many = Array.from({ length: 201 }, (_, i) => `C${i}USDT`).join(',');
    assertIssues(await m.get(`/api/v1/market/stream?symbols=${many}`), [
      { type: 'value_error', loc: ['query', 'symbols'] },
    ]);
    assertIssues(await m.get('/api/v1/market/stream?symbols=,,'), [{ type: 'value_error', loc: ['query', 'symbols'] }]);
  });

  it('without symbols follows every pair, and sends a ping comment on the configured period', async () => {
    const raw = await rawStream(`${base}/api/v1/market/stream`, /: ping\n\n/, 5_000);
    const snapshotLine = raw.text.split('\n').find((line) => line.startsWith('data: {"prices"'));
    const snapshot = JSON.parse(snapshotLine!.slice('data: '.length)) as { count: number };
    const listed = (await m.get<{ symbols: { status: string }[] }>('/api/v1/market/symbols')).body.symbols;
    assert.equal(snapshot.count, listed.filter((s) => s.status === 'TRADING').length);
    assert.ok(snapshot.count > 2);
    assert.match(raw.text, /\n: ping\n\n/);
  });

  it('is fed by REST polling while the WebSocket stream is down, saying so in source', async () => {
    const stream = follow(`${base}/api/v1/market/stream?symbols=BNBUSDT`);
    try {
      await stream.waitFor((e) => e.type === 'snapshot');
      ws.refuseConnections(100);
      ws.dropConnections();
      await waitFor(
        async () => (await m.get<{ feed: string }>('/api/v1/market/prices/live?symbols=BNBUSDT')).body.feed === 'rest',
        5_000,
        'the fallback',
      );
      const bnb = m.binance.symbols.find((s) => s.symbol === 'BNBUSDT')!;
      bnb.price = String(Number(bnb.price) + 11.5);
      // The REST price list is cached 5 s and polled every 2 s.
      const polled = await stream.waitFor(
        (e) => e.type === 'price' && e.data.price === Number(bnb.price),
        12_000,
        'a REST price',
      );
      assert.equal(polled.data.source, 'rest');
    } finally {
      stream.close();
    }
  });
});

describe('the market price stream at shutdown', () => {
  it('ends every stream with an end event, and the server closes without waiting for clients', async () => {
    const ws = await startBinanceWsFake();
    const m = await startMarket({ env: { BINANCE_WS_URL: ws.url } });
    try {
      const base = await m.app.listen({ host: '127.0.0.1', port: 0 });
      const streams = [follow(`${base}/api/v1/market/stream?symbols=BTCUSDT`), follow(`${base}/api/v1/market/stream`)];
      await Promise.all(streams.map((s) => s.waitFor((e) => e.type === 'snapshot')));
      await m.app.close();
      for (const stream of streams) {
        const end = await stream.waitFor((e) => e.type === 'end', 2_000, 'the end event');
        assert.equal(end.data.reason, 'shutdown');
      }
    } finally {
      await m.stop().catch(() => {});
      await ws.close();
    }
  });
});

describe('the market price stream when its WebSocket comes alive during a REST poll', () => {
  it('keeps the stream price: the REST list asked for before it is older, and is not sent after it', async () => {
    const ws = await startBinanceWsFake();
    // The venue's answer is held while the test works: longer than the usual 1 s budget.
    const m = await startMarket({ env: { BINANCE_WS_URL: ws.url, MARKET_UPSTREAM_TIMEOUT_MS: '10000' } });
    const held = m.binance.hold({ pathPrefix: '/api/v3/ticker/price' });
    let stream: ReturnType<typeof follow> | undefined;
    try {
      const base = await m.app.listen({ host: '127.0.0.1', port: 0 });
      await waitFor(() => ws.connections === 1, 5_000, 'the upstream stream');
      // Connected but silent: the first subscriber starts a REST poll, which the venue holds.
      stream = follow(`${base}/api/v1/market/stream?symbols=BTCUSDT`);
      await waitFor(() => m.binance.countRequests('/api/v3/ticker/price') === 1, 5_000, 'the REST poll');
      ws.setPrice('BTCUSDT', '71000.5');
      ws.push(['BTCUSDT']);
      await waitFor(
        async () => (await m.get<{ live_stream: { live: boolean } }>('/api/v1/market/status')).body.live_stream.live,
        5_000,
        'the stream tick',
      );
      held.release();
      await stream.waitFor((e) => e.type === 'price' && e.data.price === 71000.5, 5_000, 'the stream price');
      // A REST price sent after the stream's would come with the same write or the next flush.
      await new Promise((resolve) => setTimeout(resolve, 600));
      const prices = stream.events.filter((e) => e.type === 'price').map((e) => [e.data.price, e.data.source]);
      assert.deepEqual(prices.at(-1), [71000.5, 'stream'], JSON.stringify(prices));
      assert.ok(!prices.some(([price]) => price === 65000), JSON.stringify(prices));
    } finally {
      held.release();
      stream?.close();
      await m.stop();
      await ws.close();
    }
  });
});

describe('the market price stream of a client that leaves while its snapshot is read', () => {
  it('holds no slot and no subscription once the snapshot arrives (decision 820)', async () => {
    const m = await startMarket({ env: { STREAM_MAX_PER_ADDRESS: '1' } });
    const metric = async (name: string) => {
      const body = (await m.app.inject({ method: 'GET', url: '/metrics' })).body;
      return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(body)?.[1]);
    };
    try {
      const base = await m.app.listen({ host: '127.0.0.1', port: 0 });
      // The venue's price list (the snapshot's) is held until the client has gone.
      const held = m.binance.hold({ pathPrefix: '/api/v3/ticker/price' });
      const serverSide = new Promise<Socket>((resolve) => m.app.server.once('connection', resolve));
      const client = connect(Number(new URL(base).port), '127.0.0.1');
      client.write('GET /api/v1/market/stream?symbols=BTCUSDT HTTP/1.1\r\nHost: test\r\n\r\n');
      const socket = await serverSide;
      await waitFor(async () => (await metric('market_stream_subscribers')) === 1, 5_000, 'the subscription');
      const gone = new Promise((resolve) => socket.once('close', resolve));
      client.destroy();
      await gone;
      held.release();
      await waitFor(async () => (await metric('market_stream_subscribers')) === 0, 5_000, 'the subscription let go');
      assert.equal(m.modules.sse.count(), 0, 'no stream slot is held');
      const controller = new AbortController();
      try {
        const next = await fetch(`${base}/api/v1/market/stream?symbols=BTCUSDT`, { signal: controller.signal });
        assert.equal(next.status, 200, "the address's one stream is free");
      } finally {
        controller.abort();
      }
    } finally {
      await m.stop();
    }
  });
});
