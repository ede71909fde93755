// What strangers' bodies may hold before their signatures fail (decision 961): each its own share, as
// any request, and beyond it one pool for all of them; an upload that would go past the pool is
// refused with 429, and what a body held is given back however it ends.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { TestApp } from '../../helpers/test-app.ts';
import { githubDelivery } from '../../fakes/webhook-senders.ts';
import { SECRETS, send, webhookApp } from './webhooks-kit.ts';

const CODEHOST = '/api/webhooks/platforms/codehost';
const MiB = 1024 * 1024;

interface Holder {
  /** The answer, when the server gave one before the upload ended. */
  answer: Promise<{ status: number; retryAfter: string | undefined; body: unknown }>;
  close(): void;
}

/** A stranger's upload of `declared` bytes with a wrong signature: `sent` of them are sent, the rest never. */
function holdUpload(port: number, declared: number, sent: number): Holder {
  const request = http.request({
    host: '127.0.0.1',
    port,
    path: CODEHOST,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': String(declared),
      'x-github-event': 'push',
      'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
    },
  });
  const answer = new Promise<{ status: number; retryAfter: string | undefined; body: unknown }>((resolve) => {
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          retryAfter: response.headers['retry-after'] as string | undefined,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        }),
      );
    });
  });
  // The server may close the connection once it has answered; the rest of the upload then fails.
  request.on('error', () => undefined);
  request.write(Buffer.concat([Buffer.from('{"padding": "'), Buffer.alloc(sent - 13, 0x78)]));
  return { answer, close: () => request.destroy() };
}

const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  Promise.race([promise, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref())]);

describe('unverified webhook bodies share one pool (decision 961)', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    ({ t } = await webhookApp());
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    ({ port } = t.app.server.address() as { port: number });
  });
  after(async () => {
    await t.close();
  });

  it('refuses the upload past the pool with 429, takes small deliveries meanwhile, and gives the room back', {
    timeout: 60_000,
  }, async () => {
    // Four strangers hold 24 MiB each (within the code host's 25 MiB): together past the 64 MiB pool.
    const holders = [0, 1, 2, 3].map(() => holdUpload(port, 25 * MiB, 24 * MiB));
    const first = await within(Promise.race(holders.map((h) => h.answer)), 20_000);
    if (first === 'timeout') for (const holder of holders) holder.close();
    assert.notEqual(first, 'timeout', 'no upload was refused while they held more than the pool');
    assert.deepEqual(first, {
      status: 429,
      retryAfter: '5',
      body: { detail: 'Too many webhook bodies are being received at once; retry later' },
    });

    // A delivery within what any request may hold is not kept out by them.
    const secret = SECRETS.CODEHOST_WEBHOOK_SECRET!;
    const small = await send(t, CODEHOST, githubDelivery(secret, 'ping', { zen: 'small', hook: { events: [] } }));
    assert.equal(small.statusCode, 200, small.body);

    // The strangers go away: what their bodies held is given back, and a large signed delivery fits.
    for (const holder of holders) holder.close();
    const large = githubDelivery(secret, 'ping', { zen: 'x'.repeat(20 * MiB) });
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await send(t, CODEHOST, large)).statusCode;
      if (status !== 200 && status !== 429) assert.fail(`unexpected ${status}`);
    }
    assert.equal(status, 200);
  });
});
