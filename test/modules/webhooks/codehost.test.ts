import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { TestApp } from '../../helpers/test-app.ts';
import { githubDelivery, vercelDelivery } from '../../fakes/webhook-senders.ts';
import { deliveryRows, outboxRows, SECRETS, send, webhookApp } from './webhooks-kit.ts';

const URL = '/api/webhooks/platforms/codehost';
const SECRET = SECRETS.CODEHOST_WEBHOOK_SECRET;
const repository = { full_name: 'acme/trading', html_url: 'https://github.com/acme/trading' };

function push(commits: number) {
  return {
    ref: 'refs/heads/main',
    before: 'a'.repeat(40),
    after: 'b'.repeat(40),
    created: false,
    deleted: false,
    forced: false,
    compare: 'https://github.com/acme/trading/compare/aaaaaaa...bbbbbbb',
    commits: Array.from({ length: commits }, (_, i) => ({
      id: `${i}${'c'.repeat(39)}`,
      message: `Fix number ${i}\n\nLonger body`,
      author: { name: 'Ada Lovelace', username: 'ada' },
    })),
    repository,
    pusher: { name: 'ada' },
    sender: { login: 'ada' },
  };
}

describe('code host webhook (GitHub)', () => {
  let t: TestApp;
  let clock: Awaited<ReturnType<typeof webhookApp>>['clock'];
  before(async () => {
    ({ t, clock } = await webhookApp());
  });
  after(async () => {
    await t.close();
  });

  it('accepts a push signed as GitHub signs it, stores it and queues one chat message', async () => {
    const delivery = githubDelivery(SECRET, 'push', push(2));
    const deliveryId = delivery.headers['x-github-delivery']!;
    const response = await send(t, URL, delivery);
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      status: 'processed',
      provider: 'codehost',
      event: 'push',
      delivery_id: deliveryId,
    });
    const stored = (await deliveryRows(t, 'codehost')).find((row) => row.delivery_id === deliveryId);
    assert.equal(stored?.status, 'processed');
    assert.equal(stored?.verified, true);
    const [message] = (await outboxRows(t, 'codehost')).filter((row) => row.dedupe_key === `codehost:${deliveryId}`);
    assert.equal(message?.payload.source, 'codehost');
    assert.equal(message?.payload.title, '[acme/trading] 2 new commits pushed to main by ada');
    assert.match(String(message?.payload.text), /`0cccccc` Fix number 0 \(ada\)/);
    assert.equal(message?.payload.url, 'https://github.com/acme/trading/compare/aaaaaaa...bbbbbbb');
  });

  it('accepts the spec header names x-codehost-event and x-codehost-delivery', async () => {
    const delivery = githubDelivery(
      SECRET,
      'ping',
      { zen: 'Keep it logically awesome.', hook_id: 1, hook: { events: ['push'] }, repository },
      { specNames: true },
    );
    const response = await send(t, URL, delivery);
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().delivery_id, delivery.headers['x-codehost-delivery']);
    const [message] = (await outboxRows(t, 'codehost')).filter(
      (row) => row.dedupe_key === `codehost:${delivery.headers['x-codehost-delivery']}`,
    );
    assert.equal(message?.payload.title, '[acme/trading] Code host webhook connected');
    assert.equal(message?.payload.text, 'Keep it logically awesome.');
  });

  it(
    'answers 401 for a wrong signature, a missing one ' + 'and a body changed after signing; nothing is stored',
    async () => {
      const before = (await deliveryRows(t, 'codehost')).length;
      const wrong = githubDelivery('not the secret', 'push', push(1));
      assert.equal((await send(t, URL, wrong)).statusCode, 401);
      const missing = await send(t, URL, githubDelivery(SECRET, 'push', push(1)), { 'x-hub-signature-256': undefined });
      assert.equal(missing.statusCode, 401);
      assert.deepEqual(missing.json(), { detail: 'Missing webhook signature' });
      const signed = githubDelivery(SECRET, 'push', push(1));
      const tampered = await send(t, URL, { ...signed, body: signed.body.replace('Fix number 0', 'Fix number 9') });
      assert.equal(tampered.statusCode, 401);
      assert.deepEqual(tampered.json(), { detail: 'Invalid webhook signature' });
      assert.equal((await deliveryRows(t, 'codehost')).length, before);
    },
  );

  it('answers 422 with loc ["header","x-codehost-event"] when no event header is sent', async () => {
    const delivery = githubDelivery(SECRET, 'push', push(1));
    const response = await send(t, URL, delivery, { 'x-github-event': undefined });
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json(), {
      detail: [{ type: 'missing', loc: ['header', 'x-codehost-event'], msg: 'Field required', input: null }],
    });
  });

  it('acknowledges a redelivery again as duplicate with no second message', async () => {
    const deliveryId = randomUUID();
    const delivery = githubDelivery(
      SECRET,
      'pull_request',
      {
        action: 'closed',
        number: 42,
        pull_request: {
          title: 'Add order routing',
          html_url: 'https://github.com/acme/trading/pull/42',
          merged: true,
          merged_by: { login: 'grace' },
          base: { ref: 'main' },
          head: { ref: 'routing' },
        },
        repository,
        sender: { login: 'grace' },
      },
      { deliveryId },
    );
    const first = await send(t, URL, delivery);
    const second = await send(t, URL, delivery);
    assert.equal(first.json().status, 'processed');
    assert.equal(first.json().event, 'pull_request.closed');
    assert.equal(second.statusCode, 200);
    assert.equal(second.json().status, 'duplicate');
    const messages = (await outboxRows(t, 'codehost')).filter((row) => row.dedupe_key === `codehost:${deliveryId}`);
    assert.equal(messages.length, 1);
    assert.equal(messages[0]!.payload.title, '[acme/trading] Pull request #42 merged: Add order routing');
    assert.equal(messages[0]!.payload.level, 'success');
    assert.equal((await deliveryRows(t, 'codehost')).filter((row) => row.delivery_id === deliveryId).length, 1);
  });

  it('posts a failed workflow run and a published release, but stores a successful run without a message', async () => {
    const failed = githubDelivery(SECRET, 'workflow_run', {
      action: 'completed',
      workflow_run: {
        name: 'CI',
        conclusion: 'failure',
        head_branch: 'main',
        head_sha: 'd'.repeat(40),
        html_url: 'https://github.com/acme/trading/actions/runs/1',
        actor: { login: 'ada' },
        head_commit: { message: 'Break things' },
      },
      repository,
    });
    const passed = githubDelivery(SECRET, 'workflow_run', {
      action: 'completed',
      workflow_run: { name: 'CI', conclusion: 'success', head_branch: 'main' },
      repository,
    });
    const release = githubDelivery(SECRET, 'release', {
      action: 'published',
      release: {
        tag_name: 'v1.4.0',
        name: 'Spring',
        html_url: 'https://github.com/acme/trading/releases/v1.4.0',
        body: 'Notes',
      },
      repository,
    });
    for (const delivery of [failed, passed, release]) assert.equal((await send(t, URL, delivery)).statusCode, 200);
    const byId = async (delivery: typeof failed) =>
      (await outboxRows(t, 'codehost')).filter(
        (row) => row.dedupe_key === `codehost:${delivery.headers['x-github-delivery']}`,
      );
    const [failure] = await byId(failed);
    assert.equal(failure?.payload.title, '[acme/trading] CI failed on main');
    assert.equal(failure?.payload.level, 'error');
    assert.equal((await byId(passed)).length, 0);
    assert.equal((await byId(release))[0]?.payload.title, '[acme/trading] Release Spring (v1.4.0) published');
    const stored = (await deliveryRows(t, 'codehost')).find(
      (row) => row.delivery_id === passed.headers['x-github-delivery'],
    );
    assert.equal(stored?.event, 'workflow_run.completed');
    assert.equal(stored?.status, 'processed');
  });

  it('refuses a body that is not JSON with 415 and a JSON array with a Pydantic 422', async () => {
    const form = githubDelivery(SECRET, 'push', push(1));
    const asForm = await send(
      t,
      URL,
      { ...form, body: `payload=${encodeURIComponent(form.body)}` },
      { 'content-type': 'application/x-www-form-urlencoded' },
    );
    assert.equal(asForm.statusCode, 415);
    const asText = await send(t, URL, form, { 'content-type': 'text/plain' });
    assert.equal(asText.statusCode, 415);
    const array = githubDelivery(SECRET, 'push', [1, 2]);
    const asArray = await send(t, URL, array);
    assert.equal(asArray.statusCode, 422);
    assert.deepEqual(asArray.json().detail[0].loc, ['body']);
  });

  it('accepts and stores a signed push of about 2 MiB, above the platform body limit of 1 MiB', async () => {
    const large = push(4000);
    for (const commit of large.commits) commit.message = `${commit.message} ${'x'.repeat(500)}`;
    const delivery = githubDelivery(SECRET, 'push', large);
    assert.ok(delivery.body.length > 2 * 1024 * 1024);
    const response = await send(t, URL, delivery);
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().status, 'processed');
    const stored = (await deliveryRows(t, 'codehost')).find(
      (row) => row.delivery_id === delivery.headers['x-github-delivery'],
    );
    assert.equal(stored?.status, 'processed');
    assert.equal((stored!.payload as { commits: unknown[] }).commits.length, 4000);
  });

  it('answers 413 above 25 MiB, and the other receivers keep a limit of a few MiB', async () => {
    const huge = githubDelivery(SECRET, 'push', { ...push(1), padding: 'x'.repeat(25 * 1024 * 1024) });
    const refused = await send(t, URL, huge);
    assert.equal(refused.statusCode, 413);
    assert.deepEqual(refused.json(), { detail: 'Request body too large' });
    // Signed, so that the limit is what refuses it (an unsigned one is refused before its size matters).
    const edge = await send(
      t,
      '/api/webhooks/platforms/edge',
      vercelDelivery(SECRETS.EDGE_WEBHOOK_SECRET, { type: 'deployment.created', padding: 'x'.repeat(5 * 1024 * 1024) }),
    );
    assert.equal(edge.statusCode, 413);
  });

  it(
    'loses nothing when the process dies after the acknowledgement: the message waits in ' +
      'the outbox and is delivered once',
    async () => {
      const delivery = githubDelivery(SECRET, 'push', { ...push(1), ref: 'refs/heads/crash-test' });
      const deliveryId = delivery.headers['x-github-delivery']!;
      const key = `codehost:${deliveryId}`;
      const response = await send(t, URL, delivery);
      assert.equal(response.statusCode, 200);
      // No worker has run: the acknowledged delivery's message is durable and pending.
      const [pending] = (await outboxRows(t, 'codehost')).filter((row) => row.dedupe_key === key);
      assert.equal(pending?.status, 'pending');

      // A worker claimed it and died mid-delivery: the row stays leased until its lease runs out.
      await t.database.db.execute(
        sql`UPDATE outbox SET status = 'processing', attempts = 1,
          locked_until = ${new Date(clock.now().getTime() + 60_000).toISOString()}::timestamptz
          WHERE dedupe_key = ${key}`,
      );
      const delivered: Record<string, unknown>[] = [];
      t.platform.outbox.register('chat.post', async (payload) => {
        delivered.push(payload);
      });
      const ours = () => delivered.filter((payload) => String(payload.title).includes('pushed to crash-test'));
      await t.platform.outbox.drain();
      assert.equal(ours().length, 0);

      clock.advance(61_000);
      await t.platform.outbox.drain();
      await t.platform.outbox.drain();
      assert.equal(ours().length, 1);
      assert.equal(ours()[0]!.title, '[acme/trading] 1 new commit pushed to crash-test by ada');
      const [done] = (await outboxRows(t, 'codehost')).filter((row) => row.dedupe_key === key);
      assert.equal(done?.status, 'done');

      // The sender retrying after the crash changes nothing.
      assert.equal((await send(t, URL, delivery)).json().status, 'duplicate');
      await t.platform.outbox.drain();
      assert.equal(ours().length, 1);
      assert.equal((await outboxRows(t, 'codehost')).filter((row) => row.dedupe_key === key).length, 1);
    },
  );
});
