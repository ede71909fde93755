// The signature is checked over the raw bytes before anything parses them, and a receiver that
// cannot accept a delivery answers before it reads the body (decision 060).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { TestApp } from '../../helpers/test-app.ts';
import { githubDelivery } from '../../fakes/webhook-senders.ts';
import { NOW_S, SECRETS, webhookApp } from './webhooks-kit.ts';

const CODEHOST = '/api/webhooks/platforms/codehost';
const MALFORMED = '{"type": "email.bounced", "data": {"to": ["a@example.com"]';
const zeros = (length: number) => '0'.repeat(length);

/** Per receiver: headers that announce a signature (present, well-formed, wrong). */
const WRONGLY_SIGNED: [string, Record<string, string>][] = [
  [CODEHOST, { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${zeros(64)}` }],
  ['/api/webhooks/platforms/payments', { 'stripe-signature': `t=${NOW_S},v1=${zeros(64)}` }],
  ['/api/webhooks/platforms/edge', { 'x-vercel-signature': zeros(40) }],
  ['/api/webhooks/platforms/tracker', { 'linear-signature': zeros(64), 'linear-event': 'Issue' }],
  ['/api/webhooks/platforms/errormon', { 'sentry-hook-signature': zeros(64), 'sentry-hook-resource': 'issue' }],
  ['/api/webhooks/platforms/database', { authorization: 'Bearer not-the-secret' }],
  [
    '/api/webhooks/platforms/authprovider/auth-hook',
    {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(NOW_S),
      'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
    },
  ],
  ['/api/webhooks/mailer', { 'x-mailer-signature': zeros(64) }],
];

const githubHeaders = (secret: string, body: Buffer | string) => ({
  'content-type': 'application/json',
  'x-github-event': 'push',
  'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
});

interface EarlyAnswer {
  status: number;
  body: Record<string, unknown>;
  /** Bytes of the body written when the answer came; the rest was never sent. */
  sent: number;
}

/**
 * Starts an upload of `declared` bytes, sends only its first few, and waits for the answer: only a
 * server that answers without the whole body can answer at all.
 */
function answerDuringUpload(
  port: number,
  path: string,
  headers: Record<string, string>,
  declared: number,
): Promise<EarlyAnswer> {
  return new Promise((resolve, reject) => {
    const start = Buffer.from('{"padding": "');
    const request = http.request({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      headers: { ...headers, 'content-length': String(declared) },
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({
          status: response.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          sent: start.length,
        });
        request.destroy();
      });
    });
    request.on('error', reject);
    request.write(start);
  });
}

describe('the signature comes before the JSON', () => {
  let t: TestApp;
  before(async () => {
    ({ t } = await webhookApp());
  });
  after(async () => {
    await t.close();
  });
  const stored = async () => (await t.database.rows(sql`SELECT id FROM webhook_deliveries`)).length;

  it('answers 401, not 422, for malformed JSON with a wrong signature on every receiver', async () => {
    for (const [url, headers] of WRONGLY_SIGNED) {
      const response = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', ...headers },
        payload: MALFORMED,
      });
      assert.equal(response.statusCode, 401, `${url}: ${response.body}`);
    }
    assert.equal(await stored(), 0);
  });

  it(
    'answers 401 for a body nested past the parser limit, or not UTF-8, when the signature ' +
      'is wrong; 422 when it is right',
    async () => {
      const deep = Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
      const notUtf8 = Buffer.concat([Buffer.from('{"zen": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
      for (const body of [deep, notUtf8]) {
        const wrong = await t.app.inject({
          method: 'POST',
          url: CODEHOST,
          headers: githubHeaders('not the secret', body),
          payload: body,
        });
        assert.deepEqual([wrong.statusCode, wrong.json()], [401, { detail: 'Invalid webhook signature' }]);
        // The control: the same bytes, rightly signed, reach the parser and it refuses them.
        const right = await t.app.inject({
          method: 'POST',
          url: CODEHOST,
          headers: githubHeaders(SECRETS.CODEHOST_WEBHOOK_SECRET, body),
          payload: body,
        });
        assert.equal(right.statusCode, 422);
        assert.equal(right.json().detail[0].type, 'json_invalid');
      }
      assert.equal(await stored(), 0);
    },
  );

  it(
    'refuses 8 MiB of malformed JSON with a wrong signature with 401, and reaches ' +
      'the parser only when it is signed',
    async () => {
      const large = Buffer.from(`{"commits": [${'{"id": 1, "message": "x"}, '.repeat(320_000)}`);
      assert.ok(large.length > 8 * 1024 * 1024);
      const wrong = await t.app.inject({
        method: 'POST',
        url: CODEHOST,
        headers: githubHeaders('not the secret', large),
        payload: large,
      });
      assert.equal(wrong.statusCode, 401);
      const right = await t.app.inject({
        method: 'POST',
        url: CODEHOST,
        headers: githubHeaders(SECRETS.CODEHOST_WEBHOOK_SECRET, large),
        payload: large,
      });
      assert.equal(right.statusCode, 422);
    },
  );

  it('verifies a body that arrives in many chunks as it arrives, and still refuses one that changed', {
    timeout: 60_000,
  }, async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    const delivery = githubDelivery(SECRETS.CODEHOST_WEBHOOK_SECRET, 'push', {
      ref: 'refs/heads/main',
      commits: [],
      created: true,
      padding: 'p'.repeat(2 * 1024 * 1024),
      repository: { full_name: 'acme/chunks' },
    });
    const post = (body: string) =>
      new Promise<number>((resolve, reject) => {
        // No content-length: sent chunked, 64 KiB at a time.
        const request = http.request(
          { host: '127.0.0.1', port, path: CODEHOST, method: 'POST', headers: delivery.headers },
          (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          },
        );
        request.on('error', reject);
        for (let at = 0; at < body.length; at += 64 * 1024) request.write(body.slice(at, at + 64 * 1024));
        request.end();
      });
    assert.equal(await post(delivery.body), 200);
    assert.equal(await post(delivery.body.replace('acme/chunks', 'acme/chunkz')), 401);
  });

  it('answers 401 for a wrong bearer before the upload has ended', { timeout: 30_000 }, async () => {
    const { port } = t.app.server.address() as { port: number };
    const answer = await answerDuringUpload(
      port,
      '/api/webhooks/platforms/database',
      { 'content-type': 'application/json', authorization: 'Bearer wrong' },
      4 * 1024 * 1024,
    );
    assert.deepEqual([answer.status, answer.body], [401, { detail: 'Invalid bearer token' }]);
    assert.ok(answer.sent < 4 * 1024 * 1024);
  });
});

describe('a receiver without a secret', () => {
  let t: TestApp;
  before(async () => {
    ({ t } = await webhookApp({ ...SECRETS, CODEHOST_WEBHOOK_SECRET: undefined, AUTHPROVIDER_HOOK_SECRET: undefined }));
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await t.close();
  });

  it('answers 503 while the client is still sending, without waiting for the body', { timeout: 30_000 }, async () => {
    const { port } = t.app.server.address() as { port: number };
    const answer = await answerDuringUpload(
      port,
      CODEHOST,
      { 'content-type': 'application/json', 'x-github-event': 'push' },
      20 * 1024 * 1024,
    );
    assert.deepEqual([answer.status, answer.body], [503, { detail: 'Code host webhook secret is not configured' }]);
    assert.ok(answer.sent < 20 * 1024 * 1024);
  });

  it('answers the auth hook 503 in its own error shape, also before the body', { timeout: 30_000 }, async () => {
    const { port } = t.app.server.address() as { port: number };
    const answer = await answerDuringUpload(
      port,
      '/api/webhooks/platforms/authprovider/auth-hook',
      { 'content-type': 'application/json' },
      1024 * 1024,
    );
    const detail = 'Auth provider webhook secret is not configured';
    assert.deepEqual([answer.status, answer.body], [503, { detail, error: { http_code: 503, message: detail } }]);
  });
});
