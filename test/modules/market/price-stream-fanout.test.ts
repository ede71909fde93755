// The price stream's fan-out: subscribers are grouped by the set of pairs they follow, each batch is
// encoded once per set (counted on /metrics), and every subscriber of a set reads the same bytes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startBinanceWsFake, type BinanceWsFake } from '../../fakes/binance-ws.ts';
import { startMarket, waitFor, type MarketHarness } from './market-fixtures.ts';

/** One subscriber reading the raw SSE text of the stream. */
class RawSubscriber {
  text = '';
  private readonly controller = new AbortController();
  private readonly waiters = new Set<() => void>();
  private failure: unknown;

  constructor(url: string) {
    void this.read(url);
  }

  private async read(url: string): Promise<void> {
    try {
      const response = await fetch(url, { signal: this.controller.signal });
      assert.equal(response.status, 200);
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        this.text += decoder.decode(chunk, { stream: true });
        for (const wake of this.waiters) wake();
      }
    } catch (error) {
      this.failure = error;
      for (const wake of this.waiters) wake();
    }
  }

  /** Resolves once the text holds `needle` (or fails after `timeoutMs`). */
  until(needle: string, timeoutMs = 5_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`no ${JSON.stringify(needle)} in ${this.text}`)), timeoutMs);
      const check = () => {
        if (this.text.includes(needle)) done();
        else if (this.failure && !this.controller.signal.aborted) done(this.failure);
      };
      const done = (error?: unknown) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        if (error) reject(error);
        else resolve();
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Everything after the snapshot event: the price events, as sent. */
  prices(): string {
    const start = this.text.indexOf('event: snapshot');
    return this.text.slice(this.text.indexOf('\n\n', start) + 2).replace(/: ping\n\n/g, '');
  }

  close(): void {
    this.controller.abort();
  }
}

function eventSymbols(text: string): string[] {
  return [...text.matchAll(/^event: price\ndata: \{"symbol":"([A-Z]+)"/gm)].map((match) => match[1]!);
}

describe('the market price stream fan-out', () => {
  let m: MarketHarness;
  let ws: BinanceWsFake;
  let base: string;

  async function serializations(): Promise<number> {
    const body = (await m.app.inject({ method: 'GET', url: '/metrics' })).body;
    const value = /^market_stream_serializations_total (\d+)$/m.exec(body)?.[1];
    assert.ok(value !== undefined, 'the counter is on /metrics');
    return Number(value);
  }

  before(async () => {
    ws = await startBinanceWsFake();
    m = await startMarket({ env: { BINANCE_WS_URL: ws.url, STREAM_PING_SECONDS: '300' } });
    base = await m.app.listen({ host: '127.0.0.1', port: 0 });
    await waitFor(() => ws.connections === 1, 5_000, 'the upstream stream');
    // Live before anyone subscribes: no REST poll adds batches of its own.
    ws.push(['BTCUSDT']);
    await waitFor(
      async () => (await m.get<{ feed: string }>('/api/v1/market/prices/live?symbols=BTCUSDT')).body.feed === 'stream',
      5_000,
      'the live feed',
    );
  });
  after(async () => {
    await m.stop();
    await ws.close();
  });

  it('encodes a batch once per symbol set, and every subscriber of a set reads the same bytes', async () => {
    const url = (query: string) => `${base}/api/v1/market/stream${query}`;
    // Two spellings of one set, another set, and every pair: three sets for eight subscribers.
    const pair = [
      ...Array.from({ length: 3 }, () => new RawSubscriber(url('?symbols=BTCUSDT,ETHUSDT'))),
      ...Array.from({ length: 2 }, () => new RawSubscriber(url('?symbols=eth-usdt,BTCUSDT'))),
    ];
    const sol = Array.from({ length: 2 }, () => new RawSubscriber(url('?symbols=SOLUSDT')));
    const every = new RawSubscriber(url(''));
    const all = [...pair, ...sol, every];
    try {
      await Promise.all(all.map((s) => s.until('event: snapshot')));
      const before = await serializations();

      ws.setPrice('BTCUSDT', '70001.5');
      ws.setPrice('ETHUSDT', '3501.25');
      ws.setPrice('SOLUSDT', '151.75');
      ws.push(['BTCUSDT', 'ETHUSDT', 'SOLUSDT']);
      await Promise.all([...pair, every].map((s) => s.until('"price":3501.25')));
      await Promise.all([...pair, every].map((s) => s.until('"price":70001.5')));
      await Promise.all([...sol, every].map((s) => s.until('"price":151.75')));

      // The three pairs were first seen in this push, so they went out as one batch: one encoding per set.
      assert.equal((await serializations()) - before, 3);
      const sent = pair[0]!.prices();
      for (const subscriber of pair) assert.equal(subscriber.prices(), sent, 'one set, the same bytes');
      assert.deepEqual(eventSymbols(sent).sort(), ['BTCUSDT', 'ETHUSDT']);
      assert.equal(sol[1]!.prices(), sol[0]!.prices());
      assert.deepEqual(eventSymbols(sol[0]!.prices()), ['SOLUSDT']);
      assert.match(
        sent,
        /^(event: price\ndata: \{"symbol":"[A-Z]+","price":[\d.]+,"ts":"[^"]+","source":"stream"\}\n\n)+$/,
      );
      assert.deepEqual(eventSymbols(every.prices()).sort(), ['BTCUSDT', 'ETHUSDT', 'SOLUSDT']);
    } finally {
      for (const subscriber of all) subscriber.close();
    }
  });

  it('counts subscribers and symbol sets on /metrics, and forgets a set once its last subscriber leaves', async () => {
    const metric = async (name: string) => {
      const body = (await m.app.inject({ method: 'GET', url: '/metrics' })).body;
      return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(body)?.[1]);
    };
    await waitFor(async () => (await metric('market_stream_subscribers')) === 0, 5_000, 'the last test closed');
    const a = new RawSubscriber(`${base}/api/v1/market/stream?symbols=BNBUSDT`);
    const b = new RawSubscriber(`${base}/api/v1/market/stream?symbols=bnb-usdt`);
    const c = new RawSubscriber(`${base}/api/v1/market/stream?symbols=BNBUSDT,SOLUSDT`);
    try {
      await Promise.all([a, b, c].map((s) => s.until('event: snapshot')));
      assert.equal(await metric('market_stream_subscribers'), 3);
      assert.equal(await metric('market_stream_symbol_sets'), 2);
      c.close();
      await waitFor(async () => (await metric('market_stream_symbol_sets')) === 1, 5_000, 'the set forgotten');
      assert.equal(await metric('market_stream_subscribers'), 2);
    } finally {
      for (const subscriber of [a, b, c]) subscriber.close();
    }
  });
});
