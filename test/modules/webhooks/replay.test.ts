// A signed body replayed under a new delivery id, where the signature covers neither the id nor a
// time, is the same delivery: one effect (decision 099), for as long as deliveries are kept (842).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { RETRY_WINDOW_MS } from '../../../src/modules/webhooks/providers/provider.ts';
import { bodyDigest } from '../../../src/modules/webhooks/signatures.ts';
import { resetDatabase, type TestApp } from '../../helpers/test-app.ts';
import {
  bearerDelivery,
  githubDelivery,
  linearDelivery,
  mailerSpecDelivery,
  sentryDelivery,
  type SignedDelivery,
} from '../../fakes/webhook-senders.ts';
import { NOW, NOW_S, outboxRows, SECRETS, send, webhookApp } from './webhooks-kit.ts';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const repository = { full_name: 'acme/trading', html_url: 'https://github.com/acme/trading' };
const push = (ref = 'main') => ({
  ref: `refs/heads/${ref}`,
  after: 'b'.repeat(40),
  commits: [{ id: 'c'.repeat(40), message: 'Fix the order book', author: { username: 'ada' } }],
  repository,
  pusher: { name: 'ada' },
});

/** The same bytes and signature, sent again under another id header. */
const underNewId = (delivery: SignedDelivery, idHeader: string): SignedDelivery => ({
  ...delivery,
  headers: { ...delivery.headers, [idHeader]: randomUUID() },
});

describe('a signed delivery replayed under a new delivery id', () => {
  let t: TestApp;
  let clock: Awaited<ReturnType<typeof webhookApp>>['clock'];
  before(async () => {
    ({ t, clock } = await webhookApp());
  });
  beforeEach(async () => {
    await resetDatabase(t.database);
    clock.set(NOW);
  });
  after(async () => {
    await t.close();
  });
  /** Deliveries of the last 24 hours per provider, as the dashboard shows them. */
  const received = async (provider: string): Promise<number> => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/dashboard/overview' });
    return response.json().counts.webhook_deliveries_24h.by_provider[provider];
  };

  it(
    'code host: the replay is acknowledged as the first ' + 'delivery, which stays the only one and posts once',
    async () => {
      const original = githubDelivery(SECRETS.CODEHOST_WEBHOOK_SECRET, 'push', push());
      const first = await send(t, '/api/webhooks/platforms/codehost', original);
      assert.equal(first.json().status, 'processed');
      clock.advance(HOUR);
      const replay = await send(t, '/api/webhooks/platforms/codehost', underNewId(original, 'x-github-delivery'));
      assert.equal(replay.statusCode, 200);
      assert.deepEqual(
        [replay.json().status, replay.json().delivery_id],
        ['duplicate', original.headers['x-github-delivery']],
      );
      assert.equal(await received('codehost'), 1);
      assert.equal((await outboxRows(t, 'codehost')).length, 1);
    },
  );

  it('code host: another body under another id is another delivery (the control)', async () => {
    for (const ref of ['main', 'release']) {
      assert.equal(
        (
          await send(
            t,
            '/api/webhooks/platforms/codehost',
            githubDelivery(SECRETS.CODEHOST_WEBHOOK_SECRET, 'push', push(ref)),
          )
        ).json().status,
        'processed',
      );
    }
    assert.equal(await received('codehost'), 2);
    assert.equal((await outboxRows(t, 'codehost')).length, 2);
  });

  it('error monitoring: a replay under a new Request-ID has no second effect', async () => {
    const body = {
      action: 'created',
      installation: { uuid: 'inst-1' },
      data: { issue: { shortId: 'TRADING-1', title: 'TypeError', level: 'error', project: { slug: 'api' } } },
    };
    const original = sentryDelivery(SECRETS.ERRORMON_WEBHOOK_SECRET, 'issue', body, { timestamp: NOW_S });
    assert.equal((await send(t, '/api/webhooks/platforms/errormon', original)).json().status, 'processed');
    clock.advance(3 * DAY);
    assert.equal(
      (await send(t, '/api/webhooks/platforms/errormon', underNewId(original, 'request-id'))).json().status,
      'duplicate',
    );
    assert.equal((await outboxRows(t, 'errormon')).length, 1);
  });

  it('tracker: a replay under a new Linear-Delivery within the signed minute has no second effect', async () => {
    const body = {
      action: 'create',
      type: 'Issue',
      data: { identifier: 'ENG-1', title: 'Fix fills' },
      webhookTimestamp: NOW.getTime(),
    };
    const original = linearDelivery(SECRETS.TRACKER_WEBHOOK_SECRET, body);
    assert.equal((await send(t, '/api/webhooks/platforms/tracker', original)).json().status, 'processed');
    clock.advance(30_000);
    assert.equal(
      (await send(t, '/api/webhooks/platforms/tracker', underNewId(original, 'linear-delivery'))).json().status,
      'duplicate',
    );
    assert.equal(await received('tracker'), 1);
  });

  it('mailer with x-mailer-signature: the same signed body an hour later is still the same delivery', async () => {
    const body = {
      type: 'email.delivered',
      created_at: NOW.toISOString(),
      data: { email_id: 'e-1', to: ['a@example.com'] },
    };
    const original = mailerSpecDelivery(SECRETS.MAILER_WEBHOOK_SECRET, body);
    assert.equal((await send(t, '/api/webhooks/mailer', original)).json().status, 'processed');
    clock.advance(HOUR);
    assert.ok(HOUR > RETRY_WINDOW_MS);
    assert.equal((await send(t, '/api/webhooks/mailer', original)).json().status, 'duplicate');
    assert.equal(await received('mailer'), 1);
  });

  it('auth hook with the bearer: a send-email hook repeated under a new webhook-id queues the mail once', async () => {
    const input = {
      user: { id: randomUUID(), email: 'replayed@example.com' },
      email_data: {
        token: '305805',
        token_hash: 'h'.repeat(56),
        redirect_to: 'https://app.example.com',
        email_action_type: 'signup',
        site_url: 'https://project.supabase.co/auth/v1',
      },
    };
    const url = '/api/webhooks/platforms/authprovider/auth-hook';
    assert.equal(
      (await send(t, url, bearerDelivery(SECRETS.AUTHPROVIDER_HOOK_SECRET, input, { 'webhook-id': 'msg_a' })))
        .statusCode,
      200,
    );
    assert.equal(
      (await send(t, url, bearerDelivery(SECRETS.AUTHPROVIDER_HOOK_SECRET, input, { 'webhook-id': 'msg_b' })))
        .statusCode,
      200,
    );
    assert.equal((await outboxRows(t, 'authprovider', 'mail.send')).length, 1);
    assert.equal(await received('authprovider'), 1);
  });

  it('code host: a replay under a new id is the first delivery for as long as deliveries are kept', async () => {
    // Delivery ids are kept with their rows; the signed body is matched as long (decision 842), not 30 days.
    const original = githubDelivery(SECRETS.CODEHOST_WEBHOOK_SECRET, 'push', push());
    await send(t, '/api/webhooks/platforms/codehost', original);
    clock.advance(400 * DAY);
    assert.equal((await send(t, '/api/webhooks/platforms/codehost', original)).json().status, 'duplicate');
    const replay = await send(t, '/api/webhooks/platforms/codehost', underNewId(original, 'x-github-delivery'));
    assert.deepEqual(
      [replay.json().status, replay.json().delivery_id],
      ['duplicate', original.headers['x-github-delivery']],
    );
    assert.equal((await outboxRows(t, 'codehost')).length, 1, 'one chat message');
  });

  it('error monitoring and the plain mailer: a copy months later is still the same delivery', async () => {
    const issue = {
      action: 'created',
      installation: { uuid: 'inst-2' },
      data: { issue: { shortId: 'TRADING-2', title: 'RangeError', level: 'error', project: { slug: 'api' } } },
    };
    const sentry = sentryDelivery(SECRETS.ERRORMON_WEBHOOK_SECRET, 'issue', issue, { timestamp: NOW_S });
    const bounce = {
      type: 'email.bounced',
      created_at: NOW.toISOString(),
      data: { email_id: 'e-2', to: ['gone@example.com'], bounce: { type: 'Permanent' } },
    };
    const mail = mailerSpecDelivery(SECRETS.MAILER_WEBHOOK_SECRET, bounce);
    assert.equal((await send(t, '/api/webhooks/platforms/errormon', sentry)).json().status, 'processed');
    assert.equal((await send(t, '/api/webhooks/mailer', mail)).json().status, 'processed');
    clock.advance(90 * DAY);
    assert.equal(
      (await send(t, '/api/webhooks/platforms/errormon', underNewId(sentry, 'request-id'))).json().status,
      'duplicate',
    );
    assert.equal((await send(t, '/api/webhooks/mailer', mail)).json().status, 'duplicate');
    assert.equal((await outboxRows(t, 'errormon')).length, 1);
  });

  it('finds a copy stored under the former 30-day window key (rows from before decision 842)', async () => {
    const original = githubDelivery(SECRETS.CODEHOST_WEBHOOK_SECRET, 'push', push('legacy'));
    await send(t, '/api/webhooks/platforms/codehost', original);
    // As the former code stored it: the digest and the start of its 30-day window.
    const window = 30 * DAY;
    const former = `${bodyDigest(Buffer.from(original.body))}@${new Date(Math.floor(NOW.getTime() / window) * window).toISOString()}`;
    await t.database.db.execute(sql`UPDATE webhook_deliveries SET content_key = ${former} WHERE provider = 'codehost'`);
    clock.advance(20 * DAY);
    assert.equal(
      (await send(t, '/api/webhooks/platforms/codehost', underNewId(original, 'x-github-delivery'))).json().status,
      'duplicate',
    );
    assert.equal((await outboxRows(t, 'codehost')).length, 1);
  });
});
