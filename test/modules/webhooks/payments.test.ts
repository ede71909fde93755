import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import { eq, sql } from 'drizzle-orm';
import { users } from '../../../src/modules/users/users.tables.ts';
import { paymentsLedger } from '../../../src/modules/webhooks/webhooks.tables.ts';
import { signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { stripeDelivery, stripeEvent } from '../../fakes/webhook-senders.ts';
import { deliveryRows, NOW, NOW_S, outboxRows, SECRETS, send, webhookApp } from './webhooks-kit.ts';

const URL = '/api/webhooks/platforms/payments';
const SECRET = SECRETS.PAYMENTS_WEBHOOK_SECRET;
const DAY_MS = 24 * 60 * 60 * 1000;

function invoice(id: string, fields: Record<string, unknown> = {}) {
  return {
    id,
    object: 'invoice',
    customer: 'cus_ada',
    customer_email: 'Ada@Example.com',
    amount_paid: 4900,
    amount_due: 4900,
    currency: 'usd',
    status: 'paid',
    number: `INV-${id}`,
    hosted_invoice_url: `https://invoice.stripe.com/i/${id}`,
    status_transitions: { paid_at: NOW_S - 30 },
    attempt_count: 1,
    ...fields,
  };
}

function subscription(status: string, lookupKey: string | null = 'pro_monthly') {
  return {
    id: 'sub_ada',
    object: 'subscription',
    customer: 'cus_ada',
    status,
    cancel_at_period_end: false,
    metadata: {},
    items: {
      data: [
        {
          price: { id: 'price_123', lookup_key: lookupKey, nickname: null, metadata: {} },
          current_period_end: NOW_S + 30 * 86400,
        },
      ],
    },
  };
}

describe('payments webhook (Stripe)', () => {
  let t: TestApp;
  let clock: Awaited<ReturnType<typeof webhookApp>>['clock'];
  let userId: string;
  let admin: TestUser;
  const post = (event: unknown, options: { timestamp?: number; specHeader?: boolean } = {}) =>
    send(
      t,
      URL,
      stripeDelivery(SECRET, event, {
        timestamp: options.timestamp ?? Math.floor(clock.now().getTime() / 1000),
        specHeader: options.specHeader,
      }),
    );
  /** An admin read; the tests move the clock by days, so an expired admin signs in again. */
  const asAdmin = async (url: string) => {
    let response = await t.app.inject({ method: 'GET', url, headers: admin.headers });
    if (response.statusCode === 401) {
      admin = await signIn(t.app, t.database, { role: 'admin' });
      response = await t.app.inject({ method: 'GET', url, headers: admin.headers });
    }
    assert.equal(response.statusCode, 200, response.body);
    return response;
  };
  const tierOf = async (id = userId) =>
    (await asAdmin(`/api/admin/users/${id}`)).json<{ subscriptionTier: string }>().subscriptionTier;
  // No operation shows the end of a grace period: it is read from the users table.
  const graceEndsOf = async (id = userId) =>
    (await t.database.db.select({ at: users.gracePeriodEndsAt }).from(users).where(eq(users.id, id)))[0]!.at;
  // No operation lists the ledger's rows (the statistics show sums only): its user and e-mail are read from the table.
  const ledger = () => t.database.db.select().from(paymentsLedger).orderBy(paymentsLedger.externalId);
  /** A user's audit entries, newest first, as the admin activity operation shows them. */
  const activityOf = async (id: string) =>
    (await asAdmin(`/api/admin/users/${id}/activity?limit=100`)).json() as {
      action: string;
      actor_type: string;
      details: Record<string, unknown>;
    }[];
  const auditActions = async () =>
    (await activityOf(userId)).filter((a) => a.actor_type === 'webhook').map((a) => a.action);
  const tierChanges = async (id: string) =>
    (await activityOf(id)).filter((a) => a.action === 'billing.subscription.tier_change');

  before(async () => {
    ({ t, clock } = await webhookApp());
    userId = (await signIn(t.app, t.database, { email: 'ada@example.com' })).id;
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
  });

  describe('signatures', () => {
    it('accepts the spec header payments-signature and Stripe-Signature alike', async () => {
      const a = await post(stripeEvent('customer.created', { id: 'cus_x' }), { specHeader: true });
      const b = await post(stripeEvent('customer.created', { id: 'cus_y' }));
      assert.equal(a.statusCode, 200);
      assert.equal(b.statusCode, 200);
      assert.equal(a.json().event, 'customer.created');
    });

    it('answers 401 for a wrong secret, a missing header and a signature older than 300 s', async () => {
      const event = stripeEvent('customer.created', { id: 'cus_z' });
      const wrong = await send(t, URL, stripeDelivery('whsec_wrong', event, { timestamp: NOW_S }));
      assert.deepEqual([wrong.statusCode, wrong.json()], [401, { detail: 'Invalid webhook signature' }]);
      const missing = await send(t, URL, stripeDelivery(SECRET, event, { timestamp: NOW_S }), {
        'stripe-signature': undefined,
      });
      assert.deepEqual([missing.statusCode, missing.json()], [401, { detail: 'Missing webhook signature' }]);
      const stale = await post(event, { timestamp: NOW_S - 301 });
      assert.deepEqual(
        [stale.statusCode, stale.json()],
        [401, { detail: 'Webhook timestamp is outside the tolerance window' }],
      );
      assert.equal((await post(event, { timestamp: NOW_S - 299 })).statusCode, 200);
    });
  });

  describe('effects', () => {
    it('remembers the customer of a completed checkout and tells the chat', async () => {
      const event = stripeEvent('checkout.session.completed', {
        id: 'cs_1',
        object: 'checkout.session',
        mode: 'subscription',
        customer: 'cus_ada',
        customer_details: { email: 'ADA@example.com' },
        amount_total: 4900,
        currency: 'usd',
      });
      assert.equal((await post(event)).statusCode, 200);
      const [message] = (await outboxRows(t, 'payments')).filter((row) => row.dedupe_key === `payments:${event.id}`);
      assert.equal(message?.payload.title, 'Checkout completed by ada@example.com');
      // No operation shows the customer mapping: it is read from its table.
      const [mapping] = await t.database.rows<{ user_id: string }>(
        sql`SELECT user_id FROM payment_customers WHERE customer_id = 'cus_ada'`,
      );
      assert.equal(mapping?.user_id, userId);
    });

    it('records a paid invoice once in the ledger in major units, even when invoice.payment_succeeded follows', async () => {
      const paid = stripeEvent('invoice.paid', invoice('in_usd'), { id: 'evt_paid_usd' });
      const succeeded = stripeEvent('invoice.payment_succeeded', invoice('in_usd'), { id: 'evt_succeeded_usd' });
      assert.equal((await post(paid)).json().status, 'processed');
      assert.equal((await post(succeeded)).json().status, 'processed');
      const rows = (await ledger()).filter((row) => row.externalId === 'in_usd');
      assert.equal(rows.length, 1);
      assert.equal(new Decimal(rows[0]!.amount).toFixed(2), '49.00');
      assert.equal(rows[0]!.currency, 'USD');
      assert.equal(rows[0]!.userId, userId);
      assert.equal(rows[0]!.customerEmail, 'ada@example.com');
      assert.equal(rows[0]!.occurredAt.toISOString(), new Date((NOW_S - 30) * 1000).toISOString());
      const messages = (await outboxRows(t, 'payments')).filter((row) =>
        String(row.payload.title).startsWith('Payment received'),
      );
      assert.deepEqual(
        messages.map((m) => m.payload.title),
        ['Payment received: 49.00 USD from ada@example.com'],
      );
      assert.ok((await auditActions()).includes('billing.payment.record'));
    });

    it('does not divide a zero-decimal currency', async () => {
      await post(stripeEvent('invoice.paid', invoice('in_jpy', { amount_paid: 5000, currency: 'jpy' })));
      const [row] = (await ledger()).filter((r) => r.externalId === 'in_jpy');
      assert.equal(new Decimal(row!.amount).toString(), '5000');
      assert.equal(row!.currency, 'JPY');
    });

    it('acknowledges a redelivered event as duplicate without a second ledger row or message', async () => {
      const event = stripeEvent('invoice.paid', invoice('in_redelivered'), { id: 'evt_redelivered' });
      assert.equal((await post(event)).json().status, 'processed');
      const again = await post(event);
      assert.equal(again.statusCode, 200);
      assert.equal(again.json().status, 'duplicate');
      assert.equal((await ledger()).filter((r) => r.externalId === 'in_redelivered').length, 1);
      assert.equal(
        (await outboxRows(t, 'payments')).filter((row) => row.dedupe_key === 'payments:evt_redelivered').length,
        1,
      );
      assert.equal(
        (await deliveryRows(t, 'payments')).filter((row) => row.delivery_id === 'evt_redelivered').length,
        1,
      );
    });

    it('sets the tier from a subscription update of the remembered customer', async () => {
      const event = stripeEvent('customer.subscription.updated', subscription('active'), {
        previous: { items: { data: [] } },
      });
      assert.equal((await post(event)).statusCode, 200);
      assert.equal(await tierOf(), 'pro');
      const [message] = (await outboxRows(t, 'payments')).filter((row) => row.dedupe_key === `payments:${event.id}`);
      assert.equal(message?.payload.title, 'Subscription updated for ada@example.com');
      assert.equal(message?.payload.text, 'Tier: free → pro');
      assert.ok((await auditActions()).includes('billing.subscription.tier_change'));
    });

    it('opens a grace period on a failed payment, once, and ends it when the subscription is active again', async () => {
      const failed = stripeEvent(
        'invoice.payment_failed',
        invoice('in_failed', { amount_paid: 0, status: 'open', attempt_count: 1 }),
      );
      assert.equal((await post(failed)).statusCode, 200);
      const graceEnds = new Date(NOW.getTime() + 7 * DAY_MS);
      assert.equal((await graceEndsOf())?.toISOString(), graceEnds.toISOString());
      const [message] = (await outboxRows(t, 'payments')).filter((row) => row.dedupe_key === `payments:${failed.id}`);
      assert.equal(message?.payload.title, 'Payment failed of 49.00 USD for ada@example.com');
      assert.equal(message?.payload.level, 'error');

      clock.advance(DAY_MS);
      await post(stripeEvent('invoice.payment_failed', invoice('in_failed', { amount_paid: 0, attempt_count: 2 })));
      assert.equal((await graceEndsOf())?.toISOString(), graceEnds.toISOString());

      await post(
        stripeEvent('customer.subscription.updated', subscription('active'), { previous: { status: 'past_due' } }),
      );
      assert.equal(await graceEndsOf(), null);
      assert.equal(await tierOf(), 'pro');
      const actions = await auditActions();
      assert.equal(actions.filter((a) => a === 'billing.grace_period.open').length, 1);
      assert.ok(actions.includes('billing.grace_period.clear'));
    });

    it('returns the user to free when the subscription is deleted', async () => {
      const event = stripeEvent('customer.subscription.deleted', subscription('canceled'));
      await post(event);
      assert.equal(await tierOf(), 'free');
      const [message] = (await outboxRows(t, 'payments')).filter((row) => row.dedupe_key === `payments:${event.id}`);
      assert.equal(message?.payload.title, 'Subscription canceled for ada@example.com');
      assert.equal(message?.payload.text, 'Tier: pro → free');
    });

    it('stores an event not worth a message and answers processed', async () => {
      const event = stripeEvent('charge.refunded', { id: 'ch_1' });
      assert.equal((await post(event)).json().status, 'processed');
      assert.equal(
        (await outboxRows(t, 'payments')).filter((row) => row.dedupe_key === `payments:${event.id}`).length,
        0,
      );
      assert.equal(
        (await deliveryRows(t, 'payments')).find((row) => row.delivery_id === event.id)?.event,
        'charge.refunded',
      );
    });

    it('holds subscription changes that come before the customer is known and applies the newest, once, when an invoice links the customer', async () => {
      const grace = (await signIn(t.app, t.database, { email: 'grace@example.com' })).id;
      const sub = (status: string, lookupKey: string) => ({
        ...subscription(status, lookupKey),
        id: 'sub_grace',
        customer: 'cus_grace',
      });
      // Stripe sent the newer change (pro) before the older one (basic); neither names an e-mail.
      const newer = stripeEvent('customer.subscription.updated', sub('active', 'pro_monthly'), {
        created: NOW_S - 60,
        previous: { items: { data: [] } },
      });
      const older = stripeEvent('customer.subscription.updated', sub('active', 'basic_monthly'), {
        created: NOW_S - 120,
        previous: { status: 'incomplete' },
      });
      for (const event of [newer, older]) {
        const response = await post(event);
        assert.equal(response.statusCode, 200);
        assert.equal(response.json().status, 'unmatched');
      }
      assert.equal(await tierOf(grace), 'free');
      const held = async () =>
        (await deliveryRows(t, 'payments')).filter((row) => [newer.id, older.id].includes(row.delivery_id));
      assert.deepEqual(
        (await held()).map((row) => row.status),
        ['unmatched', 'unmatched'],
      );
      const health = (await t.app.inject({ method: 'GET', url: '/api/webhooks/platforms/health' })).json();
      assert.equal(health.providers.payments.unmatched, 2);
      // A redelivery of a held change is a duplicate and still waits.
      assert.equal((await post(newer)).json().status, 'duplicate');

      const linking = stripeEvent(
        'invoice.paid',
        invoice('in_grace', { customer: 'cus_grace', customer_email: 'grace@example.com' }),
      );
      assert.equal((await post(linking)).json().status, 'processed');
      assert.equal(await tierOf(grace), 'pro');
      const statuses = Object.fromEntries((await held()).map((row) => [row.delivery_id, row.status]));
      assert.deepEqual(statuses, { [newer.id]: 'processed', [older.id]: 'superseded' });
      const changes = await tierChanges(grace);
      assert.deepEqual(
        changes.map((c) => [c.details.from, c.details.to, c.details.heldDelivery]),
        [['free', 'pro', newer.id]],
      );
      const messages = (await outboxRows(t, 'payments')).filter(
        (row) => row.dedupe_key === `payments:${linking.id}:${newer.id}`,
      );
      assert.deepEqual(
        messages.map((m) => [m.payload.title, m.payload.text]),
        [['Subscription updated for grace@example.com', 'Tier: free → pro']],
      );

      // Exactly once: later deliveries of the linked customer find nothing held.
      await post(
        stripeEvent(
          'invoice.paid',
          invoice('in_grace_2', { customer: 'cus_grace', customer_email: 'grace@example.com' }),
        ),
      );
      await post(
        stripeEvent('checkout.session.completed', {
          id: 'cs_grace',
          object: 'checkout.session',
          mode: 'subscription',
          customer: 'cus_grace',
          customer_details: { email: 'grace@example.com' },
        }),
      );
      assert.equal((await tierChanges(grace)).length, 1);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/webhooks/platforms/health' })).json().providers.payments
          .unmatched,
        0,
      );

      // Once the customer is known, a newer change is applied as it comes.
      const downgrade = stripeEvent('customer.subscription.deleted', sub('canceled', 'pro_monthly'), {
        created: NOW_S,
      });
      assert.equal((await post(downgrade)).json().status, 'processed');
      assert.equal(await tierOf(grace), 'free');
    });

    it("follows the newest subscription event by Stripe's created time: a stale one arriving later is superseded", async () => {
      const sub = (lookupKey: string) => ({ ...subscription('active', lookupKey), id: 'sub_lin', customer: 'cus_lin' });
      const at = (seconds: number, lookupKey: string) =>
        stripeEvent('customer.subscription.updated', sub(lookupKey), {
          created: NOW_S - seconds,
          previous: { items: { data: [] } },
        });
      // The checkout names the customer's e-mail before Lin has an account: the mapping holds only the address.
      await post(
        stripeEvent('checkout.session.completed', {
          id: 'cs_lin',
          object: 'checkout.session',
          mode: 'subscription',
          customer: 'cus_lin',
          customer_details: { email: 'lin@example.com' },
        }),
      );
      const held = at(10, 'enterprise_yearly');
      assert.equal((await post(held)).json().status, 'unmatched');

      const lin = (await signIn(t.app, t.database, { email: 'lin@example.com' })).id;
      // An older change arrives once Lin is known: the held, newer one is applied in its place.
      assert.equal((await post(at(3600, 'basic_monthly'))).json().status, 'superseded');
      assert.equal(await tierOf(lin), 'enterprise');
      assert.equal((await deliveryRows(t, 'payments')).find((row) => row.delivery_id === held.id)?.status, 'processed');
      // Older than the one applied: changes nothing.
      assert.equal((await post(at(7200, 'pro_monthly'))).json().status, 'superseded');
      assert.equal(await tierOf(lin), 'enterprise');
      // Newer: applied as it comes.
      assert.equal(
        (await post(stripeEvent('customer.subscription.deleted', sub('enterprise_yearly'), { created: NOW_S }))).json()
          .status,
        'processed',
      );
      assert.equal(await tierOf(lin), 'free');
      assert.equal((await tierChanges(lin)).length, 2);
    });

    it('applies a held change once when two linking deliveries come at the same time', async () => {
      const kim = (await signIn(t.app, t.database, { email: 'kim@example.com' })).id;
      const held = stripeEvent(
        'customer.subscription.updated',
        { ...subscription('active', 'pro_monthly'), id: 'sub_kim', customer: 'cus_kim' },
        { previous: { status: 'incomplete' } },
      );
      assert.equal((await post(held)).json().status, 'unmatched');
      const link = (id: string) =>
        post(stripeEvent('invoice.paid', invoice(id, { customer: 'cus_kim', customer_email: 'kim@example.com' })));
      const answers = await Promise.all([link('in_kim_1'), link('in_kim_2')]);
      assert.deepEqual(
        answers.map((a) => a.statusCode),
        [200, 200],
      );
      assert.equal(await tierOf(kim), 'pro');
      assert.equal((await tierChanges(kim)).length, 1);
      // Its own delivery said it waits; one of the linking deliveries says it was applied.
      const messages = (await outboxRows(t, 'payments')).filter((row) =>
        String(row.dedupe_key).endsWith(`:${held.id}`),
      );
      assert.deepEqual(messages.map((m) => m.payload.text).sort(), [
        'No user of ours matches this customer yet; the change is applied when a checkout or invoice links one.',
        'Tier: free → pro',
      ]);
    });

    it('records the payment of a customer we cannot match without a user', async () => {
      await post(
        stripeEvent(
          'invoice.paid',
          invoice('in_stranger', { customer: 'cus_stranger', customer_email: 'nobody@example.com' }),
        ),
      );
      const [row] = (await ledger()).filter((r) => r.externalId === 'in_stranger');
      assert.equal(row?.userId, null);
      assert.equal(row?.customerEmail, 'nobody@example.com');
    });
  });
});
