// The SSE registry on a real socket: a client that stops reading is dropped with a final `end` event
// once its unread output passes the bound, never buffered without limit; the total limit answers 503; a
// client that leaves before its stream opens holds nothing.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import pino from 'pino';
import { createSseRegistry, sseFrame, type SseConnection } from '../../../src/platform/http/sse.ts';
import { registerErrorHandling } from '../../../src/platform/http/error-handler.ts';

const MAX_BUFFER = 64 * 1024;

/** Resolves once `ready()` holds, looking again on each turn of the event loop. */
async function waitUntil(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setImmediate(resolve));
}

async function serve(maxConnections = 10, maxPerAddress = 100, pingMs = 60_000) {
  const sse = createSseRegistry(
    { maxConnections, maxPerUser: 5, maxPerAddress, maxBufferBytes: MAX_BUFFER, pingMs, retryMs: 1000 },
    pino({ level: 'silent' }),
  );
  const app = Fastify();
  registerErrorHandling(app, { filesUnder: '/none/' });
  const opened: SseConnection[] = [];
  // `?user=` stands for a signed-in user's account stream; without it, a public (price) stream.
  app.get<{ Querystring: { user?: string } }>('/stream', async (request, reply) => {
    opened.push(sse.open(request, reply, { userId: request.query.user }));
  });
  // A route that awaits before it opens, as the real ones do (authentication, the snapshot): each
  // request waits at the gate until the test lets it through.
  const gates: { socketClosed: Promise<void>; pass: () => void }[] = [];
  app.get('/gated', async (request, reply) => {
    sse.admit(request);
    const socketClosed = new Promise<void>((resolve) => request.raw.socket.once('close', () => resolve()));
    await new Promise<void>((pass) => gates.push({ socketClosed, pass }));
    opened.push(sse.open(request, reply));
  });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, sse, opened, gates, port: Number(new URL(base).port), base };
}

describe('the SSE registry', () => {
  it('drops a subscriber that stops reading, with a final end event, and holds at most the bound for it', async () => {
    const { app, opened, port } = await serve();
    try {
      const socket = connect(port, '127.0.0.1');
      socket.write('GET /stream HTTP/1.1\r\nHost: test\r\n\r\n');
      await new Promise<void>((resolve) => {
        const check = () => (opened.length === 1 ? resolve() : setTimeout(check, 10));
        check();
      });
      socket.pause();
      const connection = opened[0]!;
      const raw = (connection as unknown as { raw: { writableLength: number } }).raw;
      const frame = `event: price\ndata: ${JSON.stringify({ filler: 'x'.repeat(4000) })}\n\n`;
      let writes = 0;
      let largest = 0;
      // The client reads nothing: the kernel's buffers fill, then ours, until the bound drops it.
      while (connection.write(frame)) {
        writes += 1;
        largest = Math.max(largest, raw.writableLength);
        if (writes % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
        assert.ok(writes < 100_000, 'the subscriber was never dropped');
      }
      assert.equal(connection.closed, true);
      assert.ok(largest <= MAX_BUFFER + frame.length, `held ${largest} bytes for one subscriber`);

      socket.resume();
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      await new Promise<void>((resolve) => socket.on('end', () => resolve()));
      const last = text.slice(text.lastIndexOf('event: '));
      assert.match(
        last,
        /^event: end\ndata: \{"reason":"slow_consumer","detail":"[^"]+"\}\n\n/,
        'the last event says why',
      );
    } finally {
      await app.close();
    }
  });

  it('writes one shared frame to every subscriber: a reader gets its exact bytes, a stalled one is dropped at the bound', async () => {
    const { app, opened, port, base } = await serve();
    try {
      const stalled = connect(port, '127.0.0.1');
      stalled.write('GET /stream HTTP/1.1\r\nHost: test\r\n\r\n');
      await waitUntil(() => opened.length === 1);
      stalled.pause();
      const response = await fetch(`${base}/stream`);
      await waitUntil(() => opened.length === 2);
      const [slow, reader] = opened as [SseConnection, SseConnection];
      const received = (async () => {
        let text = '';
        const decoder = new TextDecoder();
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
          text += decoder.decode(chunk, { stream: true });
        return text;
      })();
      const readerRaw = (reader as unknown as { raw: { writableLength: number } }).raw;
      const slowRaw = (slow as unknown as { raw: { writableLength: number } }).raw;
      const text = `event: price\ndata: ${JSON.stringify({ filler: 'é'.repeat(2000) })}\n\n`;
      const frame = sseFrame(text);
      let rounds = 0;
      let largest = 0;
      // Each round goes to both; the reader is let drain, the stalled one never reads.
      while (!slow.closed) {
        slow.write(frame);
        assert.equal(reader.write(frame), true, 'the reader keeps up');
        rounds += 1;
        largest = Math.max(largest, slowRaw.writableLength);
        await waitUntil(() => readerRaw.writableLength === 0);
        assert.ok(rounds < 100_000, 'the stalled subscriber was never dropped');
      }
      assert.ok(largest <= MAX_BUFFER + frame.chunk.length, `held ${largest} bytes for one subscriber`);
      reader.end('shutdown');
      const body = await received;
      assert.equal(body.slice(0, body.indexOf('event: end')), `retry: 1000\n\n${text.repeat(rounds)}`);
      stalled.destroy();
    } finally {
      await app.close();
    }
  });

  it('pings a silent stream once a period, and never a stream that is sending events', async () => {
    const PING_MS = 200;
    const { app, opened, base } = await serve(10, 100, PING_MS);
    const controller = new AbortController();
    const read = async (response: Response, into: { text: string }) => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
          into.text += decoder.decode(chunk, { stream: true });
      } catch {
        // aborted at the end
      }
    };
    try {
      const silent = { text: '' };
      const busy = { text: '' };
      const silentReading = read(await fetch(`${base}/stream`, { signal: controller.signal }), silent);
      await waitUntil(() => opened.length === 1);
      const busyReading = read(await fetch(`${base}/stream`, { signal: controller.signal }), busy);
      await waitUntil(() => opened.length === 2);
      const talker = opened[1]!;
      const frame = sseFrame('event: price\ndata: {}\n\n');
      // The busy stream gets an event four times per ping period; the silent one nothing.
      const events = setInterval(() => talker.write(frame), PING_MS / 4);
      await new Promise((resolve) => setTimeout(resolve, PING_MS * 8));
      clearInterval(events);
      controller.abort();
      await Promise.all([silentReading, busyReading]);

      const pings = silent.text.split(': ping\n\n').length - 1;
      assert.ok(pings >= 3, `the silent stream was pinged ${pings} times in eight periods`);
      assert.equal(silent.text.replace(/: ping\n\n/g, ''), 'retry: 1000\n\n', 'nothing but pings');
      assert.ok(busy.text.includes('event: price'), 'the busy stream got its events');
      assert.ok(!busy.text.includes(': ping'), 'and no ping');
    } finally {
      controller.abort();
      await app.close();
    }
  });

  it('answers 503 with Retry-After once the instance holds its maximum of streams', async () => {
    const { app, base } = await serve(1);
    const controller = new AbortController();
    try {
      const first = await fetch(`${base}/stream`, { signal: controller.signal });
      assert.equal(first.status, 200);
      const second = await fetch(`${base}/stream`);
      assert.equal(second.status, 503);
      assert.equal(second.headers.get('retry-after'), '5');
      assert.deepEqual(await second.json(), { detail: 'Too many open streams on this server; try again shortly' });
    } finally {
      controller.abort();
      await app.close();
    }
  });

  it('keeps a fifth of the slots for account streams: public streams cannot take them', async () => {
    const { app, base } = await serve(5);
    const controller = new AbortController();
    try {
      for (let i = 0; i < 4; i++)
        assert.equal(
          (await fetch(`${base}/stream`, { signal: controller.signal })).status,
          200,
          `public stream ${i + 1}`,
        );
      const fifth = await fetch(`${base}/stream`);
      assert.equal(fifth.status, 503, 'the public share is full');
      const account = await fetch(`${base}/stream?user=u-1`, { signal: controller.signal });
      assert.equal(account.status, 200, "a signed-in user's stream still opens");
      assert.equal((await fetch(`${base}/stream?user=u-2`)).status, 503, 'and the instance is full now');
    } finally {
      controller.abort();
      await app.close();
    }
  });

  it('holds no slot, listener or ping for a client that left while the route awaited its checks', async () => {
    const { app, sse, opened, gates, port, base } = await serve(10, 2, 100);
    try {
      for (let i = 0; i < 3; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.write('GET /gated HTTP/1.1\r\nHost: test\r\n\r\n');
        await waitUntil(() => gates.length === i + 1);
        socket.destroy();
        await gates[i]!.socketClosed;
        gates[i]!.pass();
        await waitUntil(() => opened.length === i + 1);
        assert.equal(opened[i]!.closed, true, 'the stream of a client that left is over');
        assert.equal(sse.count(), 0, 'and counts for no limit');
      }
      const controller = new AbortController();
      try {
        for (let i = 0; i < 2; i++)
          assert.equal(
            (await fetch(`${base}/stream`, { signal: controller.signal })).status,
            200,
            'the address is free',
          );
      } finally {
        controller.abort();
      }
    } finally {
      await app.close();
    }
  });

  it('limits the public streams of one client address with 429', async () => {
    const { app, base } = await serve(10, 2);
    const controller = new AbortController();
    try {
      for (let i = 0; i < 2; i++)
        assert.equal((await fetch(`${base}/stream`, { signal: controller.signal })).status, 200);
      const third = await fetch(`${base}/stream`);
      assert.equal(third.status, 429);
      assert.deepEqual(await third.json(), {
        detail: 'At most 2 open price streams per client address; close one first',
      });
      assert.equal(
        (await fetch(`${base}/stream?user=u-1`, { signal: controller.signal })).status,
        200,
        'account streams are counted per user instead',
      );
    } finally {
      controller.abort();
      await app.close();
    }
  });
});
