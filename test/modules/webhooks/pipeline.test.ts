import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { TestApp } from '../../helpers/test-app.ts';
import { githubDelivery, stripeDelivery, stripeEvent } from '../../fakes/webhook-senders.ts';
import { deliveryRows, NOW, NOW_S, outboxRows, SECRETS, send, webhookApp } from './webhooks-kit.ts';

const RECEIVERS: [string, string][] = [
  ['/api/webhooks/platforms/codehost', 'Code host'],
  ['/api/webhooks/platforms/payments', 'Payments'],
  ['/api/webhooks/platforms/edge', 'Edge'],
  ['/api/webhooks/platforms/tracker', 'Tracker'],
  ['/api/webhooks/platforms/errormon', 'Error monitoring'],
  ['/api/webhooks/platforms/database', 'Database'],
  ['/api/webhooks/platforms/authprovider/auth-hook', 'Auth provider'],
  ['/api/webhooks/mailer', 'Mailer'],
];

const unsignedBody = { type: 'email.delivered', created_at: NOW.toISOString(), data: { to: ['a@example.com'] } };

describe('a provider without a secret', () => {
  let t: TestApp;
  before(async () => {
    ({ t } = await webhookApp({}));
  });
  after(async () => {
    await t.close();
  });

  it('answers 503 on every receiver and stores nothing', async () => {
    for (const [url, name] of RECEIVERS) {
      const response = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', 'x-codehost-event': 'push' },
        payload: JSON.stringify(unsignedBody),
      });
      assert.equal(response.statusCode, 503, url);
      const detail = response.json().detail;
      assert.equal(detail, `${name} webhook secret is not configured`, url);
    }
    assert.deepEqual(await t.database.rows(sql`SELECT id FROM webhook_deliveries`), []);
  });

  it('shows in the platform health which secrets are missing', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/webhooks/platforms/health' });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.status, 'degraded');
    assert.equal(body.allow_unsigned, false);
    assert.deepEqual(Object.keys(body.providers).sort(), [
      'authprovider',
      'codehost',
      'database',
      'edge',
      'errormon',
      'payments',
      'tracker',
    ]);
    assert.deepEqual(body.providers.codehost, {
      secret_configured: false,
      last_delivery_at: null,
      last_error: null,
      last_refused_at: null,
      last_refusal: null,
      unmatched: 0,
    });
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/webhooks/health' })).json().status, 'unconfigured');
  });
});

describe('WEBHOOKS_ALLOW_UNSIGNED=true', () => {
  let t: TestApp;
  before(async () => {
    ({ t } = await webhookApp({
      WEBHOOKS_ALLOW_UNSIGNED: 'true',
      PAYMENTS_WEBHOOK_SECRET: SECRETS.PAYMENTS_WEBHOOK_SECRET,
    }));
  });
  after(async () => {
    await t.close();
  });

  it('accepts an unsigned delivery for a provider without a secret and marks it unverified', async () => {
    const delivery = githubDelivery('irrelevant', 'push', {
      ref: 'refs/heads/main',
      commits: [{ id: 'f'.repeat(40), message: 'Hi' }],
      repository: { full_name: 'acme/x' },
    });
    const response = await send(t, '/api/webhooks/platforms/codehost', delivery, { 'x-hub-signature-256': undefined });
    assert.equal(response.statusCode, 200);
    const [stored] = await deliveryRows(t, 'codehost');
    assert.equal(stored?.verified, false);
    assert.equal((await outboxRows(t, 'codehost')).length, 1);
  });

  it('still verifies a provider whose secret is set', async () => {
    const event = stripeEvent('invoice.paid', { id: 'in_1' });
    const unsigned = await send(
      t,
      '/api/webhooks/platforms/payments',
      stripeDelivery('whsec_other', event, { timestamp: NOW_S }),
    );
    assert.equal(unsigned.statusCode, 401);
  });
});

describe('failures, statistics and health', () => {
  let t: TestApp;
  let clock: Awaited<ReturnType<typeof webhookApp>>['clock'];
  before(async () => {
    ({ t, clock } = await webhookApp());
  });
  after(async () => {
    await t.close();
  });
  const pay = (event: unknown) =>
    send(
      t,
      '/api/webhooks/platforms/payments',
      stripeDelivery(SECRETS.PAYMENTS_WEBHOOK_SECRET, event, { timestamp: Math.floor(clock.now().getTime() / 1000) }),
    );

  it('answers 422 for a request without a body', async () => {
    // Signed as Vercel signs an empty body: the signature is checked first (decision 060).
    const signature = createHmac('sha1', SECRETS.EDGE_WEBHOOK_SECRET).update('').digest('hex');
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/webhooks/platforms/edge',
      headers: { 'content-type': 'application/json', 'x-vercel-signature': signature },
    });
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json(), {
      detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
    });
  });

  it(
    'records a delivery whose effects fail, undoes those effects, answers 500, and ' +
      'processes it when the sender retries',
    async () => {
      const event = stripeEvent(
        'invoice.paid',
        {
          id: 'in_blocked',
          customer: 'cus_1',
          customer_email: 'x@example.com',
          amount_paid: 1000,
          currency: 'usd',
        },
        { id: 'evt_blocked' },
      );
      // The database refuses ledger rows for a while (e.g. a migration holding a constraint).
      await t.database.db.execute(
        sql`ALTER TABLE payments_ledger ADD CONSTRAINT ledger_blocked CHECK (external_id <> 'in_blocked') NOT VALID`,
      );
      const failed = await pay(event);
      assert.equal(failed.statusCode, 500);
      assert.deepEqual(failed.json(), { detail: 'Internal Server Error' });
      const [stored] = (await deliveryRows(t, 'payments')).filter((r) => r.delivery_id === 'evt_blocked');
      assert.equal(stored?.status, 'failed');
      assert.match(String(stored?.error), /ledger_blocked|check constraint/);
      assert.equal((await outboxRows(t, 'payments')).filter((r) => r.dedupe_key === 'payments:evt_blocked').length, 0);
      assert.deepEqual(
        await t.database.rows(sql`SELECT customer_id FROM payment_customers WHERE customer_id = 'cus_1'`),
        [],
      );

      let last = await t.modules.webhooks.service.lastDeliveries();
      assert.match(String(last.payments!.lastError), /ledger_blocked|check constraint/);

      // A stranger's delivery refused at the gate comes later, and does not hide the real error (decision 990).
      clock.advance(1_000);
      const stranger = await send(
        t,
        '/api/webhooks/platforms/payments',
        stripeDelivery('whsec_stranger', event, { timestamp: Math.floor(clock.now().getTime() / 1000) }),
      );
      assert.equal(stranger.statusCode, 401);
      last = await t.modules.webhooks.service.lastDeliveries();
      assert.match(String(last.payments!.lastError), /ledger_blocked|check constraint/);
      assert.equal(last.payments!.lastRefusedAt, clock.now().toISOString());

      await t.database.db.execute(sql`ALTER TABLE payments_ledger DROP CONSTRAINT ledger_blocked`);
      const retried = await pay(event);
      assert.equal(retried.statusCode, 200);
      assert.equal(retried.json().status, 'processed');
      const [after] = (await deliveryRows(t, 'payments')).filter((r) => r.delivery_id === 'evt_blocked');
      assert.deepEqual([after?.status, after?.attempts, after?.error], ['processed', 2, null]);
      assert.equal((await outboxRows(t, 'payments')).filter((r) => r.dedupe_key === 'payments:evt_blocked').length, 1);
      assert.equal((await pay(event)).json().status, 'duplicate');
    },
  );

  it('counts deliveries per provider since a time and reports the last delivery and rejection', async () => {
    // A second instance over the same database and cache, as the dashboard module would hold.
    const module = t.modules.webhooks;
    clock.advance(60_000);
    const since = clock.now();
    await send(
      t,
      '/api/webhooks/platforms/codehost',
      githubDelivery(SECRETS.CODEHOST_WEBHOOK_SECRET, 'star', { action: 'created' }),
    );
    await send(
      t,
      '/api/webhooks/platforms/codehost',
      githubDelivery(SECRETS.CODEHOST_WEBHOOK_SECRET, 'star', { action: 'deleted' }),
    );
    await pay(stripeEvent('customer.created', { id: 'cus_stats' }));
    const stats = await module.service.deliveryStats(since);
    assert.equal(stats.total, 3);
    assert.equal(stats.byProvider.codehost, 2);
    assert.equal(stats.byProvider.payments, 1);
    assert.equal(stats.byProvider.mailer, 0);

    let last = await module.service.lastDeliveries();
    assert.equal(last.codehost!.lastDeliveryAt, since.toISOString());
    assert.equal(last.codehost!.lastError, null);
    assert.deepEqual(last.edge, { lastDeliveryAt: null, lastError: null, lastRefusedAt: null });

    clock.advance(1_000);
    const refusedAt = clock.now().toISOString();
    const rejected = await send(t, '/api/webhooks/platforms/codehost', githubDelivery('wrong', 'push', {}));
    assert.equal(rejected.statusCode, 401);
    last = await module.service.lastDeliveries();
    assert.equal(last.codehost!.lastError, null, "a refusal is not the provider's error (decision 990)");
    assert.equal(last.codehost!.lastRefusedAt, refusedAt);

    const health = (await t.app.inject({ method: 'GET', url: '/api/webhooks/platforms/health' })).json();
    assert.equal(health.status, 'ok');
    assert.deepEqual(health.providers.codehost, {
      secret_configured: true,
      last_delivery_at: since.toISOString(),
      last_error: null,
      last_refused_at: refusedAt,
      last_refusal: 'Invalid webhook signature',
      unmatched: 0,
    });

    // Refusals within a minute of the recorded one are not written again, whatever their reason.
    clock.advance(30_000);
    const unsigned = githubDelivery(SECRETS.CODEHOST_WEBHOOK_SECRET, 'push', {});
    const missing = await send(t, '/api/webhooks/platforms/codehost', unsigned, { 'x-hub-signature-256': undefined });
    assert.equal(missing.statusCode, 401);
    last = await module.service.lastDeliveries();
    assert.equal(last.codehost!.lastRefusedAt, refusedAt);
    clock.advance(30_000);
    await send(t, '/api/webhooks/platforms/codehost', githubDelivery('wrong', 'push', {}));
    last = await module.service.lastDeliveries();
    assert.equal(last.codehost!.lastRefusedAt, clock.now().toISOString(), 'a minute later the next one is');

    clock.advance(1_000);
    await send(
      t,
      '/api/webhooks/platforms/codehost',
      githubDelivery(SECRETS.CODEHOST_WEBHOOK_SECRET, 'star', { action: 'created', n: 2 }),
    );
    last = await module.service.lastDeliveries();
    assert.equal(last.codehost!.lastError, null);
    assert.equal(last.codehost!.lastDeliveryAt, clock.now().toISOString());
  });

  it('never writes a secret or a signature to the log, even when rejecting', async () => {
    const delivery = githubDelivery(SECRETS.CODEHOST_WEBHOOK_SECRET, 'push', {});
    await send(t, '/api/webhooks/platforms/codehost', delivery, { 'x-hub-signature-256': 'sha256=00' });
    await send(t, '/api/webhooks/platforms/codehost', delivery);
    assert.ok(t.logText().includes('webhook delivery rejected'));
    const logs = t.logText();
    for (const secret of Object.values(SECRETS)) assert.ok(!logs.includes(secret));
    assert.ok(!logs.includes(delivery.headers['x-hub-signature-256']!.slice(7)));
  });
});
