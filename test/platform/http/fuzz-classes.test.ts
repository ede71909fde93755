// The classes of answers two fuzzers found (decision 130), checked on every operation of the
// OpenAPI document the app serves, so no route added later can bring them back: a 5xx, a status the
// operation does not document, and an error answer larger than a small bound. Each operation gets
// lone UTF-16 surrogates in every body string, path parameter and query value, a control character
// in a header (over a socket: Node's parser answers it), and a 1 MB body (missing its fields) and
// one over the body limit.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { LOCAL_DEFAULT_TEAM } from '../../../src/modules/tracker/adapters/local-tracker-backend.ts';
import {
  bodyWithStrings,
  operationsOf,
  plausibleUrl,
  urlWithRaw,
  withFixtures,
  type Known,
  type Operation,
} from '../../helpers/hostile-requests.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { startVenueFakes, type VenueFakes } from '../../modules/exchange/venue-fakes.ts';

const JOB_SECRET = 'fuzz-classes-job-secret-0123456789';
/** No answer to these requests may be larger: an error never echoes what it was sent. */
const MAX_ANSWER_BYTES = 64 * 1024;
const LONE = 'x\ud800y';
const STREAMS = ['/api/v1/market/stream', '/api/stream'];

/** One raw request on a fresh connection; the status line and body of the answer. */
function rawRequest(port: number, text: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.write(text);
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', reject);
    const done = () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      resolve({ status, body: received.slice(received.indexOf('\r\n\r\n') + 4) });
    };
    socket.on('close', done);
    socket.setTimeout(5000, () => socket.destroy());
  });
}

describe('fuzzer classes on every operation: no 5xx, only documented statuses, bounded answers', () => {
  let t: TestApp;
  let venues: VenueFakes;
  let admin: TestUser;
  let port: number;
  let known: Known;
  let operations: Operation[];

  before(async () => {
    venues = await startVenueFakes();
    t = await buildTestApp({
      env: venues.env({
        SCHEDULED_JOB_SECRET: JOB_SECRET,
        // The Telegram link answers its code rather than 503 (no reader runs under inject()).
        TELEGRAM_BOT_TOKEN: '123456:fuzz-bot-token',
        TELEGRAM_BOT_USERNAME: 'fuzz_alerts_bot',
        WEBHOOKS_ALLOW_UNSIGNED: 'true',
        MARKET_DATA_SOURCE: 'simulated',
      }),
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
    admin = await signIn(t.app, t.database, { role: 'admin' });
    const member = await signIn(t.app, t.database);
    // Operations on an issue, a task, a key, a credential or an export reach their service, not a 404.
    known = await withFixtures(t.app, admin.headers, {
      teamId: LOCAL_DEFAULT_TEAM.id,
      symbol: 'BTCUSDT',
      symbols: 'BTCUSDT',
      user_id: member.id,
      userId: member.id,
      email: member.email,
    });
    operations = operationsOf(t.app.swagger());
    // Signing out would end the admin session the other operations use: it goes last.
    operations.sort((a, b) => Number(a.path === '/api/auth/logout') - Number(b.path === '/api/auth/logout'));
    assert.ok(operations.length >= 99, `only ${operations.length} operations`);
  });
  after(async () => {
    await t.close();
    await venues.close();
  });

  const headers = () => ({ ...admin.headers, 'x-scheduled-job-secret': JOB_SECRET });

  /** The failures of one answer, or none. */
  function judge(operation: Operation, label: string, status: number, body: string): string[] {
    const where = `${operation.method} ${operation.path} [${label}] → ${status} ${body.slice(0, 160)}`;
    const failures: string[] = [];
    if (status >= 500 || status === 0) failures.push(`5xx or no answer: ${where}`);
    else if (!operation.responses.includes(String(status))) failures.push(`undocumented status: ${where}`);
    if (Buffer.byteLength(body) > MAX_ANSWER_BYTES)
      failures.push(`answer of ${Buffer.byteLength(body)} bytes: ${where}`);
    return failures;
  }

  it('lone surrogates in every body string, path parameter and query value', async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const operation of operations) {
      // An open stream holds inject() until it ends; its refusals are checked over a socket below.
      if (operation.method === 'GET' && STREAMS.includes(operation.path)) continue;
      const requests: { label: string; url: string; payload?: string }[] = [];
      if (operation.body)
        requests.push({
          label: 'surrogates in the body',
          url: plausibleUrl(operation, known),
          payload: bodyWithStrings(operation, LONE, known),
        });
      // A surrogate has no UTF-8 form: in a URL it can only come as the bytes of one (CESU-8).
      if (operation.parameters.some((p) => p.in === 'path' || p.in === 'query'))
        requests.push({ label: 'surrogates in the URL', url: urlWithRaw(operation, 'x%ED%A0%80y', known) });
      for (const request of requests) {
        const response = await t.app.inject({
          method: operation.method as 'GET',
          url: request.url,
          headers: request.payload ? { ...headers(), 'content-type': 'application/json' } : headers(),
          payload: request.payload,
        });
        sent++;
        failures.push(...judge(operation, request.label, response.statusCode, response.body));
        if (request.payload?.includes('\\ud800') && response.statusCode < 300)
          failures.push(
            `accepted a lone surrogate: ${operation.method} ${operation.path} ` +
              `→ ${response.statusCode} ${response.body.slice(0, 200)} (sent ${request.payload.slice(0, 200)})`,
          );
      }
    }
    assert.deepEqual(failures, [], `${failures.length} of ${sent} requests`);
    assert.ok(sent > 75, `only ${sent} requests`);
  });

  it('a control character in a header value, over a socket, as the fuzzers sent it', async () => {
    const failures: string[] = [];
    for (const operation of operations) {
      const header = operation.parameters.find((p) => p.in === 'header')?.name ?? 'authorization';
      const text =
        `${operation.method} ${plausibleUrl(operation, known)} HTTP/1.1\r\nHost: ` +
        `x\r\nAuthorization: ${admin.headers.authorization}\r\n${header}: a\u0001b\r\nConnection: close\r\n\r\n`;
      const answer = await rawRequest(port, text);
      failures.push(...judge(operation, `control character in ${header}`, answer.status, answer.body));
      if (answer.status !== 400) failures.push(`not 400: ${operation.method} ${operation.path} → ${answer.status}`);
      else assert.deepEqual(JSON.parse(answer.body), { detail: 'Bad Request' });
    }
    assert.deepEqual(failures, []);
  });

  it('a 1 MB body missing its fields, and one over the body limit', async () => {
    const failures: string[] = [];
    const megabyte = JSON.stringify({
      filler: 'x'.repeat(1_000_000),
      list: Array.from({ length: 3000 }, (_, i) => `item-${i}`),
    });
    const over = JSON.stringify({ filler: 'x'.repeat(1_100_000) });
    for (const operation of operations) {
      if (operation.method === 'GET' || operation.method === 'HEAD') continue;
      for (const [label, payload] of [
        ['1 MB body', megabyte],
        ['body over the limit', over],
      ] as const) {
        const response = await t.app.inject({
          method: operation.method as 'POST',
          url: plausibleUrl(operation, known),
          headers: { ...headers(), 'content-type': 'application/json' },
          payload,
        });
        failures.push(...judge(operation, label, response.statusCode, response.body));
      }
    }
    assert.deepEqual(failures, []);
  });
});
