// The payments webhook (Stripe) and customers whose last subscription change was applied before
// decision 975 (decision 1020): they remember no tier, so the tier is read from their newest applied
// subscription delivery, and what it grants still keeps the user up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { users } from '../../../src/modules/users/users.tables.ts';
import { signIn, type TestApp } from '../../helpers/test-app.ts';
import { stripeEvent } from '../../fakes/webhook-senders.ts';
import { invoice, type PaymentsApp, startPaymentsApp, subscription } from './payments-fixtures.ts';
import { NOW_S } from './webhooks-kit.ts';

describe('payments webhook (Stripe): customers from before decision 975', () => {
  let t: TestApp;
  let post: PaymentsApp['post'];
  let tierOf: PaymentsApp['tierOf'];
  // No operation shows the end of a grace period or the customer mapping: they are read from the tables.
  const graceEndsOf = async (id: string) =>
    (await t.database.db.select({ at: users.gracePeriodEndsAt }).from(users).where(eq(users.id, id)))[0]!.at;
  const customerOf = async (customerId: string) =>
    (
      await t.database.rows<{ tier: string | null; proven: boolean | null }>(
        sql`SELECT tier, proven FROM payment_customers WHERE customer_id = ${customerId}`,
      )
    )[0];
  const change = (customer: string, status: string, lookupKey: string, created: number, metadata = {}) =>
    stripeEvent(
      status === 'canceled' ? 'customer.subscription.deleted' : 'customer.subscription.updated',
      { ...subscription(status, lookupKey), id: `sub_${customer}`, customer, metadata },
      { created, previous: { status: 'incomplete' } },
    );
  const processedOk = async (event: unknown) => {
    const response = await post(event);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().status, 'processed');
  };

  before(async () => {
    ({ t, post, tierOf } = await startPaymentsApp());
  });
  after(async () => {
    await t.close();
  });

  it(
    'a customer whose pro subscription was applied before 975 still pays for pro: the user’s other ' +
      'customer neither lowers them nor opens a grace period, and its own cancellation still lowers them',
    async () => {
      const user = (await signIn(t.app, t.database, { email: 'early@example.com' })).id;
      // The user's first customer, linked by the typed address, subscribed to pro.
      await processedOk(
        stripeEvent(
          'invoice.paid',
          invoice('in_early', { customer: 'cus_early', customer_email: 'early@example.com' }),
        ),
      );
      await processedOk(change('cus_early', 'active', 'pro_monthly', NOW_S - 900));
      assert.equal(await tierOf(user), 'pro');
      // The row as it was before decision 975: no tier remembered, nothing known of how it was linked.
      // The stored deliveries are as they were then.
      await t.database.db.execute(
        sql`UPDATE payment_customers SET tier = NULL, proven = NULL, raised_from = NULL
          WHERE customer_id = 'cus_early'`,
      );

      // A second customer, the user's by proof, subscribes to basic, fails, and is canceled.
      const proof = { user_id: user };
      await processedOk(change('cus_later', 'active', 'basic_monthly', NOW_S - 800, proof));
      assert.equal(await tierOf(user), 'pro', 'the early customer still pays for pro');
      const failed = invoice('in_later', {
        customer: 'cus_later',
        customer_email: 'early@example.com',
        status: 'open',
        parent: { subscription_details: { metadata: proof, subscription: 'sub_cus_later' } },
      });
      await processedOk(stripeEvent('invoice.payment_failed', failed));
      assert.equal(await graceEndsOf(user), null);
      await processedOk(change('cus_later', 'canceled', 'basic_monthly', NOW_S - 700, proof));
      assert.equal(await tierOf(user), 'pro');
      // What was read is remembered; how the early customer was linked stays unknown.
      assert.deepEqual(await customerOf('cus_early'), { tier: 'pro', proven: null });

      // The early customer's own cancellation lowers the user, as it did before.
      await processedOk(change('cus_early', 'canceled', 'pro_monthly', NOW_S - 600));
      assert.equal(await tierOf(user), 'free');
    },
  );
});
