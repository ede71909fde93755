// Secrets never reach the log: driven through the real app at the most verbose level, including a
// route that carelessly logs whole requests, as a module might.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger, isSecretName, redactSecrets, redactUrl } from '../../../src/platform/observability/logger.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';

const PASSWORD = 'Pw-correct-horse-battery-staple';
const SEALED = 'v1.k7f3.sealed-provider-key-material';
const HASH = 'pbk2';
const SECRETS = {
  api_key: 'AKIA-api-key-1111',
  api_secret: 'api-secret-2222',
  api_passphrase: 'passphrase-3333',
  jobSecret: 'job-secret-4444',
  venueKey: 'mbx-key-5555',
  nestedToken: 'nested-token-6666',
  cookie: 'session-cookie-7777',
  signature: 'sha256=signature-8888',
  queryKey: 'query-api-key-9999',
};

describe('log redaction', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      env: { LOG_LEVEL: 'trace' },
      routes: async (app) => {
        app.post('/test/echo', { schema: { hide: true } }, async (request) => {
          request.log.info(
            { headers: request.headers, body: request.body, query: request.query },
            'received a request',
          );
          request.log.warn(
            { payload: { credentials: [{ exchange: 'binance', secret: SECRETS.api_secret }] } },
            'nested payload',
          );
          return { ok: true };
        });
        app.post('/test/failing-write', { schema: { hide: true } }, async () => {
          // A query that fails with a secret among its parameters; PostgreSQL quotes the value too.
          await t.database.db.execute(sql`SELECT ${SEALED}::integer, ${'second\u0000value'}::text`);
          return { ok: true };
        });
        app.post('/test/failing-bigint', { schema: { hide: true } }, async () => {
          // A bigint parameter (the stream events' ids are bigserial): logging the failure must not throw.
          await t.database.db.execute(sql`SELECT 1 FROM no_such_table WHERE id > ${12345678901234567890n}`);
          return { ok: true };
        });
        app.post('/test/failing-lookup', { schema: { hide: true } }, async () => {
          // A secret-named column next to short values (1, 2) that also occur in every stack frame.
          await t.database.db.execute(
            sql`SELECT 1 FROM users WHERE "password_hash" = ${HASH} AND id = ${1}::integer LIMIT ${2}`,
          );
          return { ok: true };
        });
      },
    });
  });
  after(async () => {
    await t.close();
  });

  it('register, login, refresh, me and logout write neither the password nor any token', async () => {
    const email = 'logged@example.com';
    const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url, payload: payload as object, headers });
    assert.equal((await post('/api/auth/register', { email, password: PASSWORD })).statusCode, 201);
    assert.equal((await post('/api/auth/login', { email, password: `${PASSWORD}-wrong` })).statusCode, 401);
    const login = await post('/api/auth/login', { email, password: PASSWORD });
    assert.equal(login.statusCode, 200);
    const { access_token: access, refresh_token: refresh } = login.json<{
      access_token: string;
      refresh_token: string;
    }>();
    const refreshed = await post('/api/auth/refresh', { refresh_token: refresh });
    assert.equal(refreshed.statusCode, 200);
    const { access_token: access2, refresh_token: refresh2 } = refreshed.json<{
      access_token: string;
      refresh_token: string;
    }>();
    const headers = { authorization: `Bearer ${access2}` };
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/auth/me', headers })).statusCode, 200);
    assert.equal((await post('/api/auth/logout', undefined, headers)).statusCode, 200);

    const log = t.logText();
    assert.ok(log.split('\n').length > 10, 'the app logged its requests at trace level');
    for (const secret of [PASSWORD, access, refresh, access2, refresh2])
      assert.ok(!log.includes(secret), `leaked: ${secret.slice(0, 12)}...`);
  });

  it('a failed query logs its SQL and cause but none of the values it was given', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/test/failing-write' });
    assert.equal(response.statusCode, 500);
    assert.deepEqual(response.json(), { detail: 'Internal Server Error' });
    const logged = t.logLines().find((line) => line.msg === 'unhandled error') as
      | { err: { message: string; stack: string; params: unknown } }
      | undefined;
    assert.ok(logged, 'the failure was logged');
    assert.match(logged.err.message, /Failed query: SELECT \$1::integer/);
    assert.equal(logged.err.params, '[redacted]');
    assert.ok(!t.logText().includes(SEALED), 'the sealed value is nowhere in the log');
    assert.ok(!t.logText().includes('second'), 'nor the other parameter');
  });

  it('a failed query keeps its stack frames readable: only the values of secret-named columns go', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/test/failing-lookup' });
    assert.equal(response.statusCode, 500);
    const logged = t
      .logLines()
      .filter((line) => line.msg === 'unhandled error')
      .at(-1) as { err: { message: string; stack: string } } | undefined;
    assert.ok(logged, 'the failure was logged');
    // Even a 4-character value bound to password_hash is scrubbed; "1" and "2" stay, in the SQL too.
    assert.ok(!t.logText().includes(HASH), 'the hash is nowhere in the log');
    assert.match(logged.err.message, /AND id = \$2::integer LIMIT \$3/);
    const frames = logged.err.stack.split('\n').filter((line) => /^\s+at\s/.test(line));
    assert.ok(frames.length > 0, 'the stack has frames');
    for (const frame of frames) assert.ok(!frame.includes('[redacted]'), `frame garbled: ${frame}`);
    assert.ok(
      frames.some((frame) => /:\d+:\d+\)?$/.test(frame)),
      'frames keep their line and column numbers',
    );
  });

  it('a failed query with a bigint parameter is logged like any other, its value kept from the log', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/test/failing-bigint' });
    assert.equal(response.statusCode, 500);
    assert.deepEqual(response.json(), { detail: 'Internal Server Error' });
    const logged = t
      .logLines()
      .filter((line) => line.msg === 'unhandled error')
      .at(-1) as { err: { message: string } } | undefined;
    assert.match(String(logged?.err.message), /no_such_table/);
    assert.ok(!t.logText().includes('12345678901234567890'), 'a long value no column name explains is scrubbed');
  });

  it('secret headers, body fields at any depth and query parameters are redacted', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: `/test/echo?symbol=BTCUSDT&api_key=${SECRETS.queryKey}`,
      headers: {
        authorization: `Bearer ${SECRETS.nestedToken}`,
        'x-scheduled-job-secret': SECRETS.jobSecret,
        'x-mbx-apikey': SECRETS.venueKey,
        cookie: `sid=${SECRETS.cookie}`,
        'x-hub-signature-256': SECRETS.signature,
      },
      payload: {
        exchange_name: 'binance',
        api_key: SECRETS.api_key,
        api_secret: SECRETS.api_secret,
        api_passphrase: SECRETS.api_passphrase,
        has_passphrase: true,
        accounts: [{ label: 'main', refreshToken: SECRETS.nestedToken }],
      },
    });
    assert.equal(response.statusCode, 200);
    const log = t.logText();
    for (const [name, secret] of Object.entries(SECRETS)) assert.ok(!log.includes(secret), `leaked ${name}`);

    const received = t.logLines().find((line) => line.msg === 'received a request') as {
      body: Record<string, unknown>;
      query: Record<string, unknown>;
    };
    assert.equal(received.body.exchange_name, 'binance', 'what is not secret stays readable');
    assert.equal(received.body.has_passphrase, true, 'a flag about a secret is not a secret');
    assert.equal(received.body.api_key, '[redacted]');
    assert.equal(received.query.symbol, 'BTCUSDT');
    const incoming = t
      .logLines()
      .find(
        (line) => line.msg === 'incoming request' && String((line.req as { url: string }).url).startsWith('/test/echo'),
      );
    assert.equal((incoming!.req as { url: string }).url, '/test/echo?symbol=BTCUSDT&api_key=[redacted]');
  });
});

describe('redaction helpers', () => {
  it('recognise secret names however they are spelled', () => {
    for (const name of [
      'password',
      'newPassword',
      'api_key',
      'apiKey',
      'X-MBX-APIKEY',
      'api_secret',
      'client_secret',
      'passphrase',
      'access_token',
      'refreshToken',
      'Authorization',
      'cookie',
      'x-hub-signature-256',
      'stripe-signature',
      'private_key',
      'ENCRYPTION_KEY',
    ]) {
      assert.ok(isSecretName(name), name);
    }
    for (const name of [
      'email',
      'token_type',
      'expires_in',
      'key_prefix',
      'exchange',
      'symbol',
      'tokenHash',
      'api_key_masked',
    ]) {
      assert.ok(!isSecretName(name), name);
    }
  });

  it('leave requests, errors and buffers to their serializers', () => {
    const error = new Error('boom');
    const redacted = redactSecrets({ err: error, nested: { password: 'x' } }) as {
      err: Error;
      nested: { password: string };
    };
    assert.equal(redacted.err, error);
    assert.equal(redacted.nested.password, '[redacted]');
  });

  it('keep URLs without secrets unchanged', () => {
    assert.equal(
      redactUrl('/api/v1/market/ticker?limit=5&symbols=BTCUSDT'),
      '/api/v1/market/ticker?limit=5&symbols=BTCUSDT',
    );
    assert.equal(redactUrl('/x?token=abc&ok=1'), '/x?token=[redacted]&ok=1');
  });

  it('a plain logger call with a secret at the top level is redacted too', () => {
    const lines: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write: (chunk, _e, done) => {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    logger.info({ password: 'p4ss', user: { apiSecret: 's3cr3t' } }, 'hello');
    assert.ok(!lines.join('').includes('p4ss'));
    assert.ok(!lines.join('').includes('s3cr3t'));
  });
});
