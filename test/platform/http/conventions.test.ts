// The `{"detail": ...}` conventions and the headers every response carries, on the real app.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { notFound } from '../../../src/platform/http/errors.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';

const SECRET_IN_CAUSE = 'hunter2-cause-that-must-stay-in-the-log';

describe('HTTP conventions', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      routes: async (app) => {
        app.get('/test/boom', { schema: { hide: true } }, async () => {
          throw new Error(`connection failed: password=${SECRET_IN_CAUSE}`);
        });
        // A library error that carries an HTTP status must not speak to the client either.
        app.get('/test/upstream', { schema: { hide: true } }, async () => {
          throw Object.assign(new Error(`upstream said: ${SECRET_IN_CAUSE}`), { statusCode: 401 });
        });
        app.get('/test/private/:id', { onRequest: app.guards.requireUser, schema: { hide: true } }, async () => {
          throw notFound('Thing not found');
        });
      },
    });
  });
  after(async () => {
    await t.close();
  });

  const request = (options: InjectOptions) => t.app.inject(options);

  describe('error bodies', () => {
    it('an unknown route answers 404 {"detail":"Not Found"}, whatever the method', async () => {
      for (const method of ['GET', 'POST', 'DELETE'] as const) {
        const response = await request({ method, url: '/api/nothing-here' });
        assert.equal(response.statusCode, 404);
        assert.deepEqual(response.json(), { detail: 'Not Found' });
      }
    });

    it('a body above the default 1 MiB limit answers 413', async () => {
      const big = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1024 * 1024) });
      const response = await request({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: big,
      });
      assert.equal(response.statusCode, 413);
      assert.deepEqual(response.json(), { detail: 'Request body too large' });
    });

    it('a body just under the limit is read (and then validated)', async () => {
      const payload = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(1024 * 1024 - 100) });
      assert.ok(Buffer.byteLength(payload) < 1024 * 1024);
      const response = await request({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().detail[0].type, 'string_too_long');
    });

    it('BODY_LIMIT_BYTES sets the limit', async () => {
      const small = await buildTestApp({ env: { BODY_LIMIT_BYTES: '2048' }, keepData: true });
      try {
        const post = (size: number) =>
          small.app.inject({
            method: 'POST',
            url: '/api/auth/refresh',
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify({ refresh_token: 'r'.repeat(size) }),
          });
        assert.equal((await post(3000)).statusCode, 413);
        assert.equal((await post(500)).statusCode, 401);
      } finally {
        await small.close();
      }
    });

    it('an unsupported content type answers 415', async () => {
      const response = await request({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': 'application/xml' },
        payload: '<login/>',
      });
      assert.equal(response.statusCode, 415);
      assert.deepEqual(response.json(), { detail: 'Unsupported media type' });
    });

    it('a 500 never leaks its cause; the cause goes to the log', async () => {
      for (const url of ['/test/boom', '/test/upstream']) {
        const response = await request({ method: 'GET', url });
        assert.equal(response.statusCode, 500, url);
        assert.deepEqual(response.json(), { detail: 'Internal Server Error' });
        assert.ok(!response.body.includes(SECRET_IN_CAUSE));
      }
      assert.ok(t.logText().includes('connection failed'), 'the cause is logged for whoever fixes the bug');
    });

    it('401 says Not authenticated with WWW-Authenticate: Bearer; a non-bearer scheme too', async () => {
      for (const headers of [{}, { authorization: 'Basic dXNlcjpwYXNz' }, { authorization: 'Bearer' }]) {
        const response = await request({ method: 'GET', url: '/api/auth/me', headers });
        assert.equal(response.statusCode, 401);
        assert.deepEqual(response.json(), { detail: 'Not authenticated' });
        assert.equal(response.headers['www-authenticate'], 'Bearer');
      }
    });
  });

  describe('headers on every response', () => {
    it('nosniff, no x-powered-by and a request id on success, errors, docs and metrics', async () => {
      const responses = await Promise.all([
        request({ method: 'GET', url: '/healthz' }),
        request({ method: 'GET', url: '/api/nothing-here' }),
        request({ method: 'GET', url: '/api/auth/me' }),
        request({ method: 'POST', url: '/api/auth/login', payload: {} }),
        request({ method: 'GET', url: '/test/boom' }),
        request({ method: 'GET', url: '/openapi.json' }),
        request({ method: 'GET', url: '/docs' }),
        request({ method: 'GET', url: '/metrics' }),
      ]);
      assert.deepEqual(
        responses.map((r) => r.statusCode),
        [200, 404, 401, 422, 500, 200, responses[6]!.statusCode, 200],
      );
      assert.ok([200, 302].includes(responses[6]!.statusCode));
      for (const response of responses) {
        assert.equal(response.headers['x-content-type-options'], 'nosniff');
        assert.equal(response.headers['x-powered-by'], undefined);
        assert.match(String(response.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      }
    });

    it('honours a sane x-request-id, echoes it and logs with it; replaces an unsafe one', async () => {
      const given = await request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'edge-7f3a.42' } });
      assert.equal(given.headers['x-request-id'], 'edge-7f3a.42');
      assert.ok(
        t.logLines().some((line) => line.reqId === 'edge-7f3a.42'),
        'log lines carry the request id',
      );
      const unsafe = await request({
        method: 'GET',
        url: '/healthz',
        headers: { 'x-request-id': 'bad id\twith "quotes"' },
      });
      assert.match(String(unsafe.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    });

    it('authenticated answers are no-store, errors included; anonymous ones are not', async () => {
      const user = await signIn(t.app, t.database);
      const me = await request({ method: 'GET', url: '/api/auth/me', headers: user.headers });
      assert.equal(me.headers['cache-control'], 'no-store');
      const missing = await request({ method: 'GET', url: '/test/private/1', headers: user.headers });
      assert.equal(missing.statusCode, 404);
      assert.deepEqual(missing.json(), { detail: 'Thing not found' });
      assert.equal(missing.headers['cache-control'], 'no-store');
      const anonymous = await request({ method: 'GET', url: '/healthz' });
      assert.equal(anonymous.headers['cache-control'], undefined);
    });
  });
});
