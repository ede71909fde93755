// Requests that never finish arriving (Slowloris: headers sent in part, or a body trickled) are answered
// 408 and their sockets closed once HEADERS_TIMEOUT_MS or REQUEST_TIMEOUT_MS is up, not after Node's 60 s
// (90 s with its check period) and 300 s; an event stream, whose request arrived whole, outlives both
// (decision 821). Real sockets against the app's own server.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import pino from 'pino';
import { createHttpServer } from '../../../src/platform/http/server.ts';
import { createSseRegistry } from '../../../src/platform/http/sse.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

/** What the server sent before it closed the socket, and how long after `since` it closed it. */
function closed(socket: Socket, since: number): Promise<{ text: string; afterMs: number }> {
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => {});
  return new Promise((resolve) => socket.on('close', () => resolve({ text, afterMs: Date.now() - since })));
}

describe('requests that never finish arriving', () => {
  let t: TestApp;
  let port: number;

  before(async () => {
    t = await buildTestApp({ env: { HEADERS_TIMEOUT_MS: '500', REQUEST_TIMEOUT_MS: '1500' } });
    port = Number(new URL(await t.app.listen({ host: '127.0.0.1', port: 0 })).port);
  });
  after(() => t.close());

  it('answers 408 and closes a connection whose headers never end, within the headers timeout and a second', async () => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    const done = closed(socket, started);
    socket.write('GET /healthz HTTP/1.1\r\nHost: test\r\nX-Slow: ');
    // Trickled: a byte every 100 ms, never the end of the headers.
    const trickle = setInterval(() => socket.writable && socket.write('a'), 100);
    try {
      const { text, afterMs } = await done;
      assert.match(text, /^HTTP\/1\.1 408 /);
      assert.ok(text.endsWith('\r\n\r\n{"detail":"Request Timeout"}'), text);
      assert.ok(afterMs < 2_500, `closed after ${afterMs} ms`);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });

  it('answers 408 and closes a connection whose body never ends, within the request timeout and a second', async () => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    const done = closed(socket, started);
    socket.write(
      'POST /api/auth/login HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    const trickle = setInterval(() => socket.writable && socket.write(' '), 100);
    try {
      const { text, afterMs } = await done;
      assert.match(text, /^HTTP\/1\.1 408 /);
      assert.ok(afterMs < 3_500, `closed after ${afterMs} ms`);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });
});

describe('an event stream under short request timeouts', () => {
  it('stays open past both timeouts: they bound the request, not the response', async () => {
    const sse = createSseRegistry(
      { maxConnections: 10, maxPerUser: 5, maxPerAddress: 10, maxBufferBytes: 65_536, pingMs: 200, retryMs: 1000 },
      pino({ level: 'silent' }),
    );
    const app = Fastify({
      serverFactory: (handler) =>
        createHttpServer(handler, undefined, { headersTimeoutMs: 200, requestTimeoutMs: 1_000 }),
    });
    app.get('/stream', async (request, reply) => {
      sse.open(request, reply);
    });
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const controller = new AbortController();
    try {
      const response = await fetch(`${base}/stream`, { signal: controller.signal });
      assert.equal(response.status, 200);
      const started = Date.now();
      let text = '';
      const decoder = new TextDecoder();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
        if (Date.now() - started > 2_500) break;
      }
      assert.ok(Date.now() - started > 2_500, 'the stream ended early');
      assert.ok(!text.includes('event: end'), text);
      assert.equal(sse.count(), 1, 'still open');
    } finally {
      controller.abort();
      await app.close();
    }
  });
});
