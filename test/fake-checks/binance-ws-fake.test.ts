// The mini-ticker stream fake must speak Binance's frames: raw arrays on /ws, {stream, data} on /stream.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { startBinanceWsFake, type BinanceWsFake } from '../fakes/binance-ws.ts';

function open(url: string): Promise<{ socket: WebSocket; next: () => Promise<unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const queue: unknown[] = [];
    const waiting: ((value: unknown) => void)[] = [];
    socket.on('message', (data) => {
      const value = JSON.parse(data.toString());
      const waiter = waiting.shift();
      if (waiter) waiter(value);
      else queue.push(value);
    });
    socket.on('open', () =>
      resolve({
        socket,
        next: () => (queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise((r) => waiting.push(r))),
      }),
    );
    socket.on('error', reject);
  });
}

describe('Binance WebSocket fake', () => {
  let fake: BinanceWsFake;
  before(async () => {
    fake = await startBinanceWsFake();
  });
  after(() => fake.close());

  it("sends mini-ticker arrays on the raw stream with Binance's field names", async () => {
    const { socket, next } = await open(`${fake.url}/ws/!miniTicker@arr`);
    fake.setPrice('ETHUSDT', '3300.00');
    fake.push(['ETHUSDT']);
    const frame = (await next()) as Record<string, unknown>[];
    assert.equal(frame.length, 1);
    assert.deepEqual(Object.keys(frame[0]!), ['e', 'E', 's', 'c', 'o', 'h', 'l', 'v', 'q']);
    assert.equal(frame[0]!.e, '24hrMiniTicker');
    assert.equal(frame[0]!.s, 'ETHUSDT');
    assert.equal(frame[0]!.c, '3300.00');
    socket.terminate();
  });

  it('wraps frames as {stream, data} on the combined endpoint', async () => {
    const { socket, next } = await open(`${fake.url}/stream?streams=!miniTicker@arr`);
    fake.push();
    const frame = (await next()) as { stream: string; data: unknown[] };
    assert.equal(frame.stream, '!miniTicker@arr');
    assert.equal(frame.data.length, 18);
    socket.terminate();
  });

  it('refuses unknown streams and, on demand, any connection; drops connections on demand', async () => {
    await assert.rejects(open(`${fake.url}/ws/btcusdt@trade`), /404/);
    fake.refuseConnections(1);
    await assert.rejects(open(`${fake.url}/ws/!miniTicker@arr`), /503/);
    const { socket } = await open(`${fake.url}/ws/!miniTicker@arr`);
    const closed = new Promise((resolve) => socket.on('close', resolve));
    fake.dropConnections();
    await closed;
  });
});
