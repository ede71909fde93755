// The payments webhook (Stripe) deciding which user a customer is (decision 975): the e-mail a payer
// types is not verified, so a stranger who pays with a user's address cannot lower that user's tier or
// open their grace period while the user's own subscription pays; a user id in the metadata proves a
// customer; a customer matching nobody is recorded, not applied.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { paymentsLedger } from '../../../src/modules/webhooks/webhooks.tables.ts';
import { signIn } from '../../helpers/test-app.ts';
import { stripeEvent } from '../../fakes/webhook-senders.ts';
import { invoice, paymentsAppPerFile, subscriptionOf } from './payments-fixtures.ts';
import { deliveryRows, NOW_S, outboxRows } from './webhooks-kit.ts';

describe('payments webhook (Stripe): which user a customer is', () => {
  const app = paymentsAppPerFile();
  // No operation shows the ledger's rows: they are read from the table.
  const ledgerUserOf = async (invoiceId: string) => {
    const { db } = app().t.database;
    return (await db.select().from(paymentsLedger).where(eq(paymentsLedger.externalId, invoiceId)))[0]?.userId;
  };
  const lastField = (message: { payload: Record<string, unknown> } | undefined) =>
    (message?.payload.fields as { name: string; value: string }[] | undefined)?.at(-1);

  it(
    "a stranger paying with the victim's address neither lowers the victim's tier nor opens a grace " +
      "period while the victim's own subscription pays; the victim's own events still apply",
    async () => {
      const { t, statusOf, tierOf, tierChanges, graceEndsOf } = app();
      const victim = (await signIn(t.app, t.database, { email: 'vic@example.com' })).id;
      // The victim's own customer: paid, then subscribed to pro.
      const ownInvoice = invoice('in_vic', { customer: 'cus_vic', customer_email: 'vic@example.com' });
      assert.equal(await statusOf(stripeEvent('invoice.paid', ownInvoice)), 'processed');
      const own = (status: string, created: number, type = 'customer.subscription.updated') =>
        stripeEvent(type, subscriptionOf('cus_vic', status), { created, previous: { status: 'incomplete' } });
      assert.equal(await statusOf(own('active', NOW_S - 600)), 'processed');
      assert.equal(await tierOf(victim), 'pro');

      // A stranger types the victim's address (case aside) at checkout: another customer.
      const typed = { customer: 'cus_stranger', customer_email: 'Vic@Example.com' };
      assert.equal(await statusOf(stripeEvent('invoice.paid', invoice('in_stranger', typed))), 'processed');
      const theirs = (status: string, created: number, type = 'customer.subscription.updated') =>
        stripeEvent(type, subscriptionOf('cus_stranger', status, 'basic_monthly'), {
          created,
          previous: { status: 'incomplete' },
        });
      assert.equal(await statusOf(theirs('active', NOW_S - 500)), 'processed');
      const canceled = theirs('canceled', NOW_S - 400, 'customer.subscription.deleted');
      assert.equal(await statusOf(canceled), 'processed');
      assert.equal(await tierOf(victim), 'pro', "the stranger's cancellation leaves the victim's tier");
      const failed = stripeEvent('invoice.payment_failed', invoice('in_stranger_2', { ...typed, status: 'open' }));
      assert.equal(await statusOf(failed), 'processed');
      assert.equal(await graceEndsOf(victim), null, 'no grace period from the stranger');
      assert.deepEqual(
        (await tierChanges(victim)).map((c) => [c.details.from, c.details.to]),
        [['free', 'pro']],
      );
      const messages = await outboxRows(t, 'payments');
      const onCancel = messages.find((m) => m.dedupe_key === `payments:${canceled.id}`);
      assert.equal(onCancel?.payload.text, 'Tier: pro → pro');
      assert.deepEqual(lastField(onCancel), { name: 'Tier kept', value: 'another customer pays for pro' });
      const onFailure = messages.find((m) => m.dedupe_key === `payments:${failed.id}`);
      assert.deepEqual(lastField(onFailure), {
        name: 'Grace period',
        value: 'not opened: another customer pays for pro',
      });

      // The victim's own failure and cancellation still apply.
      const ownFailed = stripeEvent(
        'invoice.payment_failed',
        invoice('in_vic_2', { customer: 'cus_vic', status: 'open' }),
      );
      assert.equal(await statusOf(ownFailed), 'processed');
      assert.notEqual(await graceEndsOf(victim), null);
      assert.equal(await statusOf(own('canceled', NOW_S - 300, 'customer.subscription.deleted')), 'processed');
      assert.equal(await tierOf(victim), 'free');
    },
  );

  it('a user id in the metadata proves the customer, and a typed e-mail does not move a remembered link', async () => {
    const { t, statusOf, tierOf } = app();
    const named = (await signIn(t.app, t.database, { email: 'named@example.com' })).id;
    const other = (await signIn(t.app, t.database, { email: 'other@example.com' })).id;
    const proof = { parent: { subscription_details: { metadata: { user_id: named }, subscription: 'sub_cus_named' } } };
    const first = invoice('in_named', { customer: 'cus_named', customer_email: 'other@example.com', ...proof });
    assert.equal(await statusOf(stripeEvent('invoice.paid', first)), 'processed');
    assert.equal(await ledgerUserOf('in_named'), named);
    // Later events of that customer carry only the typed address, or nothing: they stay with the user.
    const typedOnly = invoice('in_named_2', { customer: 'cus_named', customer_email: 'other@example.com' });
    assert.equal(await statusOf(stripeEvent('invoice.paid', typedOnly)), 'processed');
    assert.equal(await ledgerUserOf('in_named_2'), named);
    const upgrade = stripeEvent('customer.subscription.updated', subscriptionOf('cus_named', 'active'), {
      created: NOW_S - 200,
      previous: { status: 'incomplete' },
    });
    assert.equal(await statusOf(upgrade), 'processed');
    assert.equal(await tierOf(named), 'pro');
    assert.equal(await tierOf(other), 'free');
    // A customer first linked by a typed address is re-linked by a proof in the subscription's metadata.
    const guessed = invoice('in_guess', { customer: 'cus_guess', customer_email: 'other@example.com' });
    assert.equal(await statusOf(stripeEvent('invoice.paid', guessed)), 'processed');
    assert.equal(await ledgerUserOf('in_guess'), other);
    const proven = stripeEvent(
      'customer.subscription.updated',
      subscriptionOf('cus_guess', 'active', 'enterprise', { user_id: named }),
      { created: NOW_S - 100, previous: { status: 'incomplete' } },
    );
    assert.equal(await statusOf(proven), 'processed');
    assert.equal(await tierOf(named), 'enterprise');
    assert.equal(await tierOf(other), 'free');
  });

  it("an unmatched customer's events are recorded, not applied", async () => {
    const { t, statusOf, tierOf, graceEndsOf } = app();
    const bystander = (await signIn(t.app, t.database, { email: 'bystander@example.com' })).id;
    const nobody = { customer: 'cus_nobody', customer_email: 'nobody@example.com' };
    assert.equal(await statusOf(stripeEvent('invoice.paid', invoice('in_nobody', nobody))), 'processed');
    assert.equal(await ledgerUserOf('in_nobody'), null);
    const failed = stripeEvent('invoice.payment_failed', invoice('in_nobody_2', { ...nobody, status: 'open' }));
    assert.equal(await statusOf(failed), 'processed');
    const deleted = stripeEvent('customer.subscription.deleted', subscriptionOf('cus_nobody', 'canceled'), {
      created: NOW_S - 50,
    });
    assert.equal(await statusOf(deleted), 'unmatched');
    const rows = await deliveryRows(t, 'payments');
    assert.equal(rows.find((row) => row.delivery_id === deleted.id)?.status, 'unmatched');
    const onFailure = (await outboxRows(t, 'payments')).find((m) => m.dedupe_key === `payments:${failed.id}`);
    assert.equal(onFailure?.payload.text, 'No user of ours matches this customer.');
    assert.equal(await tierOf(bystander), 'free');
    assert.equal(await graceEndsOf(bystander), null);
  });
});
