// The payments webhook (Stripe): its signatures, and the effects of each event on the ledger, the
// chat and a known customer's tier. Changes held for a customer not yet known are in
// payments-held-changes.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import { eq, sql } from 'drizzle-orm';
import { users } from '../../../src/modules/users/users.tables.ts';
import { paymentsLedger } from '../../../src/modules/webhooks/webhooks.tables.ts';
import { signIn, type TestApp } from '../../helpers/test-app.ts';
import { stripeDelivery, stripeEvent } from '../../fakes/webhook-senders.ts';
import { DAY_MS, invoice, type PaymentsApp, SECRET, startPaymentsApp, subscription, URL } from './payments-fixtures.ts';
import { deliveryRows, NOW, NOW_S, outboxRows, send } from './webhooks-kit.ts';

describe('payments webhook (Stripe)', () => {
  let t: TestApp;
  let clock: PaymentsApp['clock'];
  let userId: string;
  let post: PaymentsApp['post'];
  let tierOfUser: PaymentsApp['tierOf'];
  let activityOf: PaymentsApp['activityOf'];
  const tierOf = (id = userId) => tierOfUser(id);
  // No operation shows the end of a grace period: it is read from the users table.
  const graceEndsOf = async (id = userId) =>
    (await t.database.db.select({ at: users.gracePeriodEndsAt }).from(users).where(eq(users.id, id)))[0]!.at;
  // No operation lists the ledger's rows (the statistics show sums only): its user and e-mail are read from the table.
  const ledger = () => t.database.db.select().from(paymentsLedger).orderBy(paymentsLedger.externalId);
  const auditActions = async () =>
    (await activityOf(userId)).filter((a) => a.actor_type === 'webhook').map((a) => a.action);

  before(async () => {
    ({ t, clock, post, tierOf: tierOfUser, activityOf } = await startPaymentsApp());
    userId = (await signIn(t.app, t.database, { email: 'ada@example.com' })).id;
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

    it(
      'records a paid invoice once in the ledger in major ' + 'units, even when invoice.payment_succeeded follows',
      async () => {
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
      },
    );

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

    it(
      'opens a grace period on a failed payment, once, ' + 'and ends it when the subscription is active again',
      async () => {
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
      },
    );

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
