import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startDraining } from '../../src/platform/http/server.ts';
import { buildTestApp, type TestApp } from '../helpers/test-app.ts';

describe('response micro-cache', () => {
  let t: TestApp;
  let base: string;
  let calls = 0;
  before(async () => {
    t = await buildTestApp({
      routes: async (app) => {
        app.get('/test/cached', { config: { microCacheMs: 300 } }, async () => ({ n: ++calls }));
        app.get('/test/uncached', async () => ({ n: ++calls }));
        // A large answer, kept a minute: what one caller can make many of with URLs that differ.
        app.get('/test/large', { config: { microCacheMs: 60_000 } }, async () => ({
          n: ++calls,
          pad: 'x'.repeat(1024 * 1024),
        }));
      },
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(() => t.close());

  it('answers a repeated GET of an opted-in route from the cache, with the conventions headers', async () => {
    const first = await fetch(`${base}/test/cached?a=1`);
    const second = await fetch(`${base}/test/cached?a=1`);
    assert.deepEqual(await first.json(), await second.json());
    assert.equal(second.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(second.headers.get('content-type'), first.headers.get('content-type'));
    assert.equal(second.headers.get('age'), '0');
    assert.ok(second.headers.get('x-request-id'));
    assert.notEqual(second.headers.get('x-request-id'), first.headers.get('x-request-id'));
    const before = calls;
    await fetch(`${base}/test/cached?a=1`);
    assert.equal(calls, before, 'the route did not run again');
  });

  it('answers with the route’s own body and headers, but for its request id, its date and its age', async () => {
    const get = (url: string) =>
      new Promise<{ headers: Map<string, string>; body: Buffer }>((resolve, reject) => {
        http
          .get(url, (answer) => {
            const chunks: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => chunks.push(chunk));
            answer.on('end', () => {
              const headers = new Map<string, string>();
              for (let i = 0; i < answer.rawHeaders.length; i += 2) {
                const name = answer.rawHeaders[i]!.toLowerCase();
                assert.ok(!headers.has(name), `${name} sent once`);
                headers.set(name, answer.rawHeaders[i + 1]!);
              }
              resolve({ headers, body: Buffer.concat(chunks) });
            });
          })
          .on('error', reject);
      });
    const routed = await get(`${base}/test/cached?a=8`);
    const cached = await get(`${base}/test/cached?a=8`);
    assert.equal(cached.headers.get('age'), '0');
    assert.ok(!routed.headers.has('age'), 'the route’s own answer has no age');
    for (const answer of [routed, cached]) {
      assert.match(answer.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
      assert.ok(answer.headers.get('date'));
      for (const name of ['x-request-id', 'date', 'age']) answer.headers.delete(name);
    }
    assert.deepEqual(cached.body, routed.body);
    assert.deepEqual(
      [...cached.headers].sort(([a], [b]) => a.localeCompare(b)),
      [...routed.headers].sort(([a], [b]) => a.localeCompare(b)),
    );
  });

  it('keys on the whole URL and expires after the route’s window', async () => {
    const start = calls;
    await fetch(`${base}/test/cached?a=2`);
    assert.equal(calls, start + 1);
    await new Promise((resolve) => setTimeout(resolve, 350));
    await fetch(`${base}/test/cached?a=2`);
    assert.equal(calls, start + 2);
  });

  it('holds a bounded number of bytes, however many URLs a caller makes up (decision 745)', async () => {
    const before = calls;
    // 100 answers of 1 MiB under 100 URLs that differ only in a parameter no route reads.
    for (let i = 0; i < 100; i++) assert.equal((await fetch(`${base}/test/large?x=${i}`)).status, 200);
    assert.equal(calls - before, 100);
    const newest = await fetch(`${base}/test/large?x=99`);
    await newest.arrayBuffer();
    assert.equal(newest.headers.get('age'), '0', 'the newest answer is served from the cache');
    assert.equal(calls - before, 100);
    await (await fetch(`${base}/test/large?x=0`)).arrayBuffer();
    assert.equal(calls - before, 101, 'the oldest answer was let go: the route ran again');
  });

  it('never serves callers with credentials, nor routes that did not opt in', async () => {
    await fetch(`${base}/test/cached?a=3`);
    const start = calls;
    await fetch(`${base}/test/cached?a=3`, { headers: { authorization: 'Bearer x' } });
    assert.equal(calls, start + 1);
    await fetch(`${base}/test/uncached`);
    await fetch(`${base}/test/uncached`);
    assert.equal(calls, start + 3);
  });

  it('gives every cached answer its own request id, or the caller’s, and its age', async () => {
    await fetch(`${base}/test/cached?a=5`);
    const answers = await Promise.all([1, 2, 3].map(() => fetch(`${base}/test/cached?a=5`)));
    const ids = answers.map((answer) => answer.headers.get('x-request-id'));
    assert.equal(new Set(ids).size, 3, `three ids: ${ids.join(', ')}`);
    for (const answer of answers) {
      assert.equal(answer.headers.get('age'), '0');
      assert.equal(answer.headers.get('content-length'), String((await answer.arrayBuffer()).byteLength));
    }
    const given = await fetch(`${base}/test/cached?a=5`, { headers: { 'x-request-id': 'trace-42.a:b' } });
    assert.equal(given.headers.get('x-request-id'), 'trace-42.a:b');
    const refused = await fetch(`${base}/test/cached?a=5`, { headers: { 'x-request-id': 'no spaces allowed' } });
    assert.notEqual(refused.headers.get('x-request-id'), 'no spaces allowed');
    assert.ok(refused.headers.get('x-request-id'));
  });

  it('counts each answer it serves once in the request metrics, read at scrape time', async () => {
    const count = async () => {
      const line = (await (await fetch(`${base}/metrics`)).text())
        .split('\n')
        .find(
          (l) =>
            l.startsWith('http_requests_total') && l.includes('route="/test/cached"') && l.includes('status="200"'),
        );
      return Number(line?.split(' ').pop() ?? 0);
    };
    await fetch(`${base}/test/cached?a=6`);
    const before = await count();
    for (let i = 0; i < 5; i++) await fetch(`${base}/test/cached?a=6`);
    assert.equal(await count(), before + 5);
    assert.equal(await count(), before + 5, 'a second scrape adds nothing');
    const series = (await t.platform.metrics.requests.get()).values.find(
      (v) => v.labels.route === '/test/cached' && String(v.labels.status) === '200',
    );
    assert.equal(series?.value, before + 5, 'requests.get() sees the same count');
  });

  it('counts answers it serves in the request metrics', async () => {
    await fetch(`${base}/test/cached?a=4`);
    await fetch(`${base}/test/cached?a=4`);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const line = metrics
      .split('\n')
      .find(
        (l) => l.startsWith('http_requests_total') && l.includes('route="/test/cached"') && l.includes('status="200"'),
      );
    assert.ok(line && Number(line.split(' ').pop()) >= 2, line);
  });

  // Last: the server stays draining.
  it('answers a cached URL with the drain’s 503 once the server drains', async () => {
    await fetch(`${base}/test/cached?a=7`);
    startDraining(t.app.server);
    const answer = await fetch(`${base}/test/cached?a=7`);
    assert.equal(answer.status, 503);
    assert.equal(answer.headers.get('connection'), 'close');
    assert.deepEqual(await answer.json(), { detail: 'The server is shutting down' });
  });
});
