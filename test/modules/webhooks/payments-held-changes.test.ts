// The payments webhook (Stripe) holding subscription changes of a customer not yet linked to a user,
// and applying the newest of them, once, when a checkout or invoice links one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signIn, type TestApp } from '../../helpers/test-app.ts';
import { stripeEvent } from '../../fakes/webhook-senders.ts';
import { invoice, type PaymentsApp, startPaymentsApp, subscription } from './payments-fixtures.ts';
import { deliveryRows, NOW_S, outboxRows } from './webhooks-kit.ts';

describe('payments webhook (Stripe)', () => {
  let t: TestApp;
  let post: PaymentsApp['post'];
  let tierOf: PaymentsApp['tierOf'];
  let tierChanges: PaymentsApp['tierChanges'];

  before(async () => {
    ({ t, post, tierOf, tierChanges } = await startPaymentsApp());
  });
  after(async () => {
    await t.close();
  });

  describe('effects', () => {
    it(
      'holds subscription changes that come before the customer is known and applies the newest, once, ' +
        'when an invoice links the customer',
      async () => {
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
      },
    );

    it(
      "follows the newest subscription event by Stripe's " + 'created time: a stale one arriving later is superseded',
      async () => {
        const sub = (lookupKey: string) => ({
          ...subscription('active', lookupKey),
          id: 'sub_lin',
          customer: 'cus_lin',
        });
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
        assert.equal(
          (await deliveryRows(t, 'payments')).find((row) => row.delivery_id === held.id)?.status,
          'processed',
        );
        // Older than the one applied: changes nothing.
        assert.equal((await post(at(7200, 'pro_monthly'))).json().status, 'superseded');
        assert.equal(await tierOf(lin), 'enterprise');
        // Newer: applied as it comes.
        assert.equal(
          (
            await post(stripeEvent('customer.subscription.deleted', sub('enterprise_yearly'), { created: NOW_S }))
          ).json().status,
          'processed',
        );
        assert.equal(await tierOf(lin), 'free');
        assert.equal((await tierChanges(lin)).length, 2);
      },
    );

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
  });
});
