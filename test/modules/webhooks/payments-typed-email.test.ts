// The payments webhook (Stripe) and a customer matched only by the e-mail its payer typed (decision
// 1021): the provider does not verify that address, so such a customer may raise a user (it costs
// them nothing) but lowers only a tier it raised, no further than the tier it raised them from, and
// opens or ends a grace period only of a tier it pays for.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signIn } from '../../helpers/test-app.ts';
import { stripeEvent } from '../../fakes/webhook-senders.ts';
import { invoice, paymentsAppPerFile, subscriptionOf } from './payments-fixtures.ts';
import { NOW_S, outboxRows } from './webhooks-kit.ts';

describe('payments webhook (Stripe): what a typed e-mail may do', () => {
  const app = paymentsAppPerFile();
  const change = (
    customer: string,
    status: string,
    lookupKey: string,
    created: number,
    options: { deleted?: boolean; metadata?: Record<string, string> } = {},
  ) =>
    stripeEvent(
      options.deleted ? 'customer.subscription.deleted' : 'customer.subscription.updated',
      subscriptionOf(customer, status, lookupKey, options.metadata),
      { created, previous: { status: 'incomplete' } },
    );
  const processedOk = async (event: unknown) => assert.equal(await app().statusOf(event), 'processed');
  const fieldsOf = async (eventId: string) => {
    const message = (await outboxRows(app().t, 'payments')).find((m) => m.dedupe_key === `payments:${eventId}`);
    return (message?.payload.fields ?? []) as { name: string; value: string }[];
  };

  it(
    'a stranger typing the address of a user an admin made pro, with no customer of their own, lowers ' +
      'nothing it did not raise, and undoes its own raise only down to pro',
    async () => {
      const { t, tierOf, tierChanges, graceEndsOf } = app();
      const admin = await signIn(t.app, t.database, { role: 'admin' });
      const victim = (await signIn(t.app, t.database, { email: 'kept@example.com' })).id;
      const set = await t.app.inject({
        method: 'PATCH',
        url: `/api/admin/users/${victim}`,
        headers: admin.headers,
        payload: { subscriptionTier: 'pro' },
      });
      assert.equal(set.statusCode, 200, set.body);

      // The stranger's checkout names the victim's address, typed: the customer is linked by it.
      const checkout = stripeEvent('checkout.session.completed', {
        id: 'cs_stranger',
        object: 'checkout.session',
        mode: 'subscription',
        customer: 'cus_typed',
        customer_details: { email: 'Kept@Example.com' },
      });
      await processedOk(checkout);
      // A cheaper subscription, then its cancellation: both would lower pro.
      await processedOk(change('cus_typed', 'active', 'basic_monthly', NOW_S - 900));
      assert.equal(await tierOf(victim), 'pro');
      const canceled = change('cus_typed', 'canceled', 'basic_monthly', NOW_S - 800, { deleted: true });
      await processedOk(canceled);
      assert.equal(await tierOf(victim), 'pro', "the stranger's cancellation leaves the admin's tier");
      assert.deepEqual((await fieldsOf(canceled.id)).at(-1), {
        name: 'Tier kept',
        value: 'matched by typed e-mail only; it did not raise pro',
      });
      // Its failed invoice opens no grace period (whose end would take the admin's pro).
      const failed = stripeEvent(
        'invoice.payment_failed',
        invoice('in_typed_1', { customer: 'cus_typed', customer_email: 'kept@example.com', status: 'open' }),
      );
      await processedOk(failed);
      assert.equal(await graceEndsOf(victim), null);
      assert.deepEqual((await fieldsOf(failed.id)).at(-1), {
        name: 'Grace period',
        value: 'not opened: matched by typed e-mail only; it does not pay for pro',
      });

      // A raise costs the victim nothing and is applied; the stranger's cancellation undoes it, to pro.
      await processedOk(change('cus_typed', 'active', 'enterprise', NOW_S - 700));
      assert.equal(await tierOf(victim), 'enterprise');
      const raisedFailed = stripeEvent(
        'invoice.payment_failed',
        invoice('in_typed_2', { customer: 'cus_typed', customer_email: 'kept@example.com', status: 'open' }),
      );
      await processedOk(raisedFailed);
      assert.equal(await graceEndsOf(victim), null, 'its end would lower the victim below pro');
      assert.deepEqual((await fieldsOf(raisedFailed.id)).at(-1), {
        name: 'Grace period',
        value:
          'not opened: matched by typed e-mail only; its end would lower the user below pro, which it did not raise',
      });
      const undone = change('cus_typed', 'canceled', 'enterprise', NOW_S - 600, { deleted: true });
      await processedOk(undone);
      assert.equal(await tierOf(victim), 'pro');
      assert.deepEqual(
        (await tierChanges(victim)).map((c) => [c.details.from, c.details.to]),
        [
          ['enterprise', 'pro'],
          ['pro', 'enterprise'],
        ],
      );
    },
  );

  it("a stranger's paid invoice or active subscription does not end the grace period of the user's own failure", async () => {
    const { t, tierOf, graceEndsOf } = app();
    const owner = (await signIn(t.app, t.database, { email: 'owner@example.com' })).id;
    const proof = { parent: { subscription_details: { metadata: { user_id: owner }, subscription: 'sub_cus_own' } } };
    const own = { customer: 'cus_own', customer_email: 'owner@example.com', ...proof };
    await processedOk(stripeEvent('invoice.paid', invoice('in_own_1', own)));
    await processedOk(change('cus_own', 'active', 'pro_monthly', NOW_S - 500, { metadata: { user_id: owner } }));
    assert.equal(await tierOf(owner), 'pro');
    await processedOk(stripeEvent('invoice.payment_failed', invoice('in_own_2', { ...own, status: 'open' })));
    const graceEnds = await graceEndsOf(owner);
    assert.notEqual(graceEnds, null);

    // A stranger pays with the owner's address typed: recorded, and the owner's grace period runs on.
    const typed = { customer: 'cus_payer', customer_email: 'OWNER@example.com' };
    await processedOk(stripeEvent('invoice.paid', invoice('in_payer_1', typed)));
    assert.deepEqual(await graceEndsOf(owner), graceEnds);
    await processedOk(change('cus_payer', 'trialing', 'basic_monthly', NOW_S - 400));
    assert.deepEqual(await graceEndsOf(owner), graceEnds);
    assert.equal(await tierOf(owner), 'pro');

    // The owner's own payment ends it.
    await processedOk(stripeEvent('invoice.paid', invoice('in_own_3', own)));
    assert.equal(await graceEndsOf(owner), null);
  });
});
