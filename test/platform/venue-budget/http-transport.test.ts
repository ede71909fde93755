// The venues' door's transport over node:http (decision 530), against loopback servers and Node's own
// fetch: the same request on the wire and the same answer read (status, reason, headers, decoded body),
// one kept-alive connection for calls in a row, and every failure as fetch gives it: the door's timeout
// (before the headers and within the body) as a TimeoutError, a reset and a refused connection as
// `fetch failed` with the socket's code, an abort before the call with its reason and nothing sent; a
// 429 opening the venue's breaker and a 5xx read as the venue's answer through the guarded fetch.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { createMemoryCache, type Cache } from '../../../src/platform/cache/cache.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { transportFailureOf } from '../../../src/platform/transport-failures.ts';
import { guardedFetch } from '../../../src/platform/venue-budget/guarded-fetch.ts';
import { createHttpTransport, isAnswerTooLarge } from '../../../src/platform/venue-budget/http-transport.ts';
import { createVenueBudgets, type VenueBudgets } from '../../../src/platform/venue-budget/venue-budget.ts';
import { startEndlessServer } from '../../fakes/endless-body.ts';
import { closedPort } from '../../helpers/ports.ts';
import { waitFor } from '../../helpers/wait.ts';

interface Seen {
  method: string;
  url: string;
  headers: [string, string][];
  body: string;
}

describe('the venues transport over node:http', () => {
  let server: Server;
  let base: string;
  let seen: Seen[];
  let connections: number;
  let handle: (request: IncomingMessage, response: ServerResponse, body: string) => void;
  const sockets = new Set<Socket>();
  let transport: ReturnType<typeof createHttpTransport>;

  before(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        const raw = request.rawHeaders;
        const headers: [string, string][] = [];
        for (let i = 0; i < raw.length; i += 2) headers.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
        seen.push({ method: request.method!, url: request.url!, headers: headers.sort(), body });
        // No Date header: two answers a second apart would differ by it.
        response.sendDate = false;
        handle(request, response, body);
      });
    });
    server.on('connection', (socket) => {
      connections += 1;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen = [];
    connections = 0;
    handle = (_request, response) => response.end('ok');
    transport = createHttpTransport(globalThis.fetch);
  });
  afterEach(() => transport.close());

  /** What a caller reads of an answer: ccxt's status, reason, headers and text, the door's JSON copy. */
  async function read(response: Response) {
    const copy = await response
      .clone()
      .json()
      .catch(() => 'not json');
    return {
      status: response.status,
      statusText: response.statusText,
      ok: response.ok,
      headers: [...response.headers],
      text: await response.text(),
      copy,
    };
  }

  /** The same call through Node's fetch and through the transport: what the server saw and what the caller read. */
  async function both(path: string, init?: RequestInit) {
    seen = [];
    const byFetch = await read(await fetch(`${base}${path}`, init));
    const byTransport = await read(await transport.fetch(`${base}${path}`, init));
    const [fetchSeen, transportSeen] = seen;
    const withoutHost = (s: Seen | undefined) => ({ ...s, headers: s?.headers.filter(([name]) => name !== 'host') });
    assert.deepEqual(withoutHost(transportSeen), withoutHost(fetchSeen));
    assert.deepEqual(byTransport, byFetch);
    return byTransport;
  }

  it('sends what fetch sends and reads what fetch reads: a signed POST, a GET, a bare POST, default headers', async () => {
    handle = (_request, response, body) => {
      response.setHeader('content-type', 'application/json;charset=UTF-8');
      response.setHeader('x-mbx-used-weight-1m', '7');
      response.setHeader('set-cookie', ['a=1', 'b=2']);
      response.end(JSON.stringify({ orderId: 42, echoed: body, text: 'Zürich – 東京' }));
    };
    const signed = await both('/api/v3/order', {
      method: 'POST',
      headers: { 'X-MBX-APIKEY': 'key', 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': 'ccxt' },
      body: 'symbol=BTCUSDT&side=BUY&quantity=0.001&signature=abc',
      // ccxt's legacy options beside a fetch of its own: ignored, as fetch ignores them.
      timeout: 10_000,
    } as RequestInit);
    assert.equal(signed.status, 200);
    assert.equal(signed.copy.orderId, 42);
    await both('/api/v3/ticker/24hr?symbol=BTCUSDT', { headers: new Headers({ accept: 'application/json' }) });
    await both('/api/v3/userDataStream', { method: 'post' });
    await both('/plain', { method: 'DELETE', headers: [['X-A', 'b']] });
    await both('/text', { method: 'POST', body: 'a text body without a type' });
  });

  it('sends header values as fetch converts them: a number and an undefined value of a record as text', async () => {
    // fetch takes a record's values as strings (WebIDL ByteString): 5 is "5" and undefined "undefined".
    const headers = { 'X-Count': 5, 'X-Absent': undefined } as unknown as Record<string, string>;
    await both('/api/v3/order', { method: 'POST', headers, body: 'a=1' });
    assert.ok(seen[1]?.headers.some(([name, value]) => name === 'x-absent' && value === 'undefined'));
  });

  it("reads 429 and 5xx answers as fetch does, and the door opens the venue's breaker on the 429", async () => {
    handle = (request, response) => {
      const status = request.url === '/limited' ? 429 : 503;
      response.writeHead(status, { 'content-type': 'application/json', 'retry-after': '7' });
      response.end(JSON.stringify({ code: -1003, msg: 'Too many requests' }));
    };
    assert.equal((await both('/limited')).status, 429);
    const unavailable = await both('/down');
    assert.equal(unavailable.status, 503);
    assert.equal(unavailable.statusText, 'Service Unavailable');

    const cache: Cache = createMemoryCache();
    const budgets: VenueBudgets = createVenueBudgets({
      cache,
      clock: fixedClock('2026-03-02T10:00:00.000Z'),
      settings: { share: 0.8, maxWaitMs: 0, egress: 'test' },
    });
    try {
      const budget = budgets.venue('v');
      const door = guardedFetch(budget, transport.fetch);
      assert.equal((await door(`${base}/limited`, { timeoutMs: 5_000 })).status, 429);
      assert.ok(budget.refusal(), "the 429 opened the venue's breaker");
      const before = seen.length;
      await assert.rejects(door(`${base}/limited`, { timeoutMs: 5_000 }));
      assert.equal(seen.length, before, 'nothing was sent while the breaker is open');
    } finally {
      await budgets.close();
      await cache.close();
    }
  });

  it('decodes gzip, deflate (with and without its header) and br bodies as fetch does; a 204 has none', async () => {
    const text = JSON.stringify({ symbols: Array.from({ length: 50 }, (_, i) => `S${i}USDT`) });
    const bodies: Record<string, [string, Buffer]> = {
      '/gzip': ['gzip', zlib.gzipSync(text)],
      '/deflate': ['deflate', zlib.deflateSync(text)],
      '/raw-deflate': ['deflate', zlib.deflateRawSync(text)],
      '/br': ['br', zlib.brotliCompressSync(text)],
      '/twice': ['gzip, br', zlib.brotliCompressSync(zlib.gzipSync(text))],
      '/unknown': ['compress', Buffer.from(text)],
    };
    handle = (request, response) => {
      if (request.url === '/empty') {
        response.writeHead(204).end();
        return;
      }
      const [coding, body] = bodies[request.url!]!;
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding }).end(body);
    };
    for (const path of Object.keys(bodies)) assert.equal((await both(path)).text, text, path);
    assert.equal((await both('/empty')).status, 204);
  });

  it('abandons an answer past its bound, as it arrives and as it is decoded: fetch failed (decision 1140)', async () => {
    const max = 1024 * 1024;
    const bounded = createHttpTransport(globalThis.fetch, { maxAnswerBytes: max });
    const endless = await startEndlessServer(200);
    const bomb = zlib.gzipSync(Buffer.alloc(8 * max));
    handle = (request, response) => {
      if (request.url === '/bomb') response.writeHead(200, { 'content-encoding': 'gzip' }).end(bomb);
      else response.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(Buffer.alloc(max / 2, 'a')));
    };
    try {
      await assert.rejects(bounded.fetch(endless.url), (error: unknown) => {
        assert.ok(error instanceof TypeError && error.message === 'fetch failed', String(error));
        assert.equal((error.cause as Error).message, `the answer is larger than ${max} bytes`);
        assert.ok(isAnswerTooLarge(error));
        return true;
      });
      await waitFor(async () => endless.requests === 1 && endless.completed === 0, 'the endless answer cut');
      assert.ok(endless.sent < 64 * max, `${endless.sent} bytes written before the cut`);
      assert.ok(bomb.length < max, 'the bomb arrives small');
      await assert.rejects(bounded.fetch(`${base}/bomb`), (error: unknown) => {
        assert.ok(error instanceof TypeError && error.message === 'fetch failed', String(error));
        assert.equal((error.cause as Error).message, `the answer is larger than ${max} bytes`);
        assert.ok(isAnswerTooLarge(error));
        return true;
      });
      // Within the bound, decoded too: read whole.
      assert.equal((await (await bounded.fetch(`${base}/within`)).text()).length, max / 2);
    } finally {
      bounded.close();
      await endless.close();
    }
  });

  it('keeps one connection alive for calls one after another', async () => {
    for (let i = 0; i < 3; i++) await (await transport.fetch(`${base}/n${i}`)).text();
    assert.equal(connections, 1);
  });

  it('waits for an answer slower than the idle sockets are kept, and sends the next call on a fresh socket', async () => {
    const brief = createHttpTransport(globalThis.fetch, { keepAliveMs: 100 });
    try {
      handle = (_request, response) => setTimeout(() => response.end('late'), 300);
      assert.equal(await (await brief.fetch(`${base}/slow`)).text(), 'late');
      await new Promise((resolve) => setTimeout(resolve, 250));
      handle = (_request, response) => response.end('ok');
      assert.equal(await (await brief.fetch(`${base}/next`)).text(), 'ok');
      assert.equal(connections, 2, 'the idle socket was closed after 100 ms');
    } finally {
      brief.close();
    }
  });

  it('lets a call under way at its close finish with its answer, and closes the idle sockets', async () => {
    await (await transport.fetch(`${base}/idle`)).text();
    handle = (_request, response) => setTimeout(() => response.end('answered after the close'), 200);
    const second = createHttpTransport(globalThis.fetch);
    try {
      const underWay = second.fetch(`${base}/slow`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const open = sockets.size;
      transport.close();
      second.close();
      assert.equal(await (await underWay).text(), 'answered after the close');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(sockets.size < open, "the first transport's idle socket was closed");
    } finally {
      second.close();
    }
  });

  it("rejects with the door's timeout, a TimeoutError, when the venue is silent and when its body stalls", async () => {
    handle = (request, response) => {
      if (request.url === '/stall-body') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"partial":');
      }
      // Otherwise never answered.
    };
    for (const path of ['/silent', '/stall-body']) {
      const started = Date.now();
      await assert.rejects(
        transport.fetch(`${base}${path}`, { signal: AbortSignal.timeout(150) }),
        (error: unknown) => {
          assert.equal((error as Error).name, 'TimeoutError', path);
          assert.deepEqual(transportFailureOf(error), { failure: 'timeout', code: 'TimeoutError' });
          return true;
        },
      );
      assert.ok(Date.now() - started < 2_000, path);
    }
  });

  it('rejects a reset as fetch does (fetch failed, the socket error its cause), before and within the answer', async () => {
    handle = (request, response) => {
      if (request.url === '/reset-in-body') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        response.write('{"partial":');
        setTimeout(() => request.socket.destroy(), 20);
        return;
      }
      request.socket.destroy();
    };
    for (const path of ['/reset', '/reset-in-body']) {
      await assert.rejects(transport.fetch(`${base}${path}`, { method: 'POST', body: 'x=1' }), (error: unknown) => {
        assert.ok(error instanceof TypeError, path);
        assert.equal((error as Error).message, 'fetch failed');
        assert.equal(transportFailureOf(error)?.failure, 'reset', path);
        return true;
      });
    }
  });

  it('rejects a refused connection as fetch does, with the same cause', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/api/v3/order`;
    const byFetch = await fetch(url).catch((error: unknown) => error as TypeError);
    const byTransport = await transport.fetch(url).catch((error: unknown) => error as TypeError);
    assert.ok(byTransport instanceof TypeError);
    assert.equal(byTransport.message, (byFetch as TypeError).message);
    assert.equal((byTransport.cause as Error).message, ((byFetch as TypeError).cause as Error).message);
    assert.deepEqual(transportFailureOf(byTransport), { failure: 'refused', code: 'ECONNREFUSED' });
  });

  it("rejects a call whose signal is already aborted with the signal's reason, sending nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(transport.fetch(`${base}/never`, { method: 'POST', body: 'x', signal: controller.signal }), {
      name: 'AbortError',
    });
    assert.equal(seen.length, 0);
  });

  it('follows a redirect as fetch does: a 307 keeps the POST and its body, a 303 becomes a GET', async () => {
    handle = (request, response, body) => {
      if (request.url === '/temporary') response.writeHead(307, { location: '/landed' }).end();
      else if (request.url === '/see-other') response.writeHead(303, { location: '/landed' }).end();
      else response.end(`${request.method} ${body}`);
    };
    const init = { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'b=1' };
    assert.equal(await (await transport.fetch(`${base}/temporary`, init)).text(), 'POST b=1');
    assert.equal(await (await transport.fetch(`${base}/see-other`, init)).text(), 'GET ');
  });

  it('hands what it does not send itself to fetch: a Request, a body that is not text', async () => {
    const calls: unknown[] = [];
    const fallback = createHttpTransport(async (input, init) => {
      calls.push(init?.body ?? input);
      return new Response('from fetch');
    });
    try {
      const request = new Request(`${base}/r`);
      assert.equal(await (await fallback.fetch(request)).text(), 'from fetch');
      const bytes = new Uint8Array([1, 2]);
      assert.equal(await (await fallback.fetch(`${base}/b`, { method: 'POST', body: bytes })).text(), 'from fetch');
      assert.deepEqual(calls, [request, bytes]);
      assert.equal(seen.length, 0);
    } finally {
      fallback.close();
    }
  });

  it('refuses a GET or HEAD with a body and a URL with credentials as fetch does, sending nothing', async () => {
    for (const method of ['GET', 'head']) {
      const byFetch = await fetch(`${base}/g`, { method, body: 'x' }).catch((error: unknown) => error);
      const byTransport = await transport.fetch(`${base}/g`, { method, body: 'x' }).catch((error: unknown) => error);
      assert.ok(byFetch instanceof TypeError);
      assert.ok(byTransport instanceof TypeError);
      assert.equal(byTransport.message, byFetch.message);
    }
    const withCredentials = base.replace('http://', 'http://user:secret@');
    const byFetch = await fetch(`${withCredentials}/u`).catch((error: unknown) => error);
    const byTransport = await transport.fetch(`${withCredentials}/u`).catch((error: unknown) => error);
    assert.ok(byFetch instanceof TypeError);
    assert.ok(byTransport instanceof TypeError);
    assert.equal(byTransport.message, byFetch.message);
    assert.equal(seen.length, 0);
  });

  it("hands every call to fetch when Node is told to use the environment's proxy, which its agents follow", async () => {
    for (const [env, execArgv] of [
      [{ NODE_USE_ENV_PROXY: '1' }, []],
      [{}, ['--use-env-proxy']],
      [{ NODE_OPTIONS: '--use-env-proxy' }, []],
    ] as const) {
      const calls: unknown[] = [];
      const proxied = createHttpTransport(
        async (input) => {
          calls.push(String(input));
          return new Response('from fetch');
        },
        { env, execArgv },
      );
      try {
        assert.equal(await (await proxied.fetch(`${base}/p`)).text(), 'from fetch');
        assert.deepEqual(calls, [`${base}/p`]);
        assert.equal(seen.length, 0);
      } finally {
        proxied.close();
      }
    }
  });
});
