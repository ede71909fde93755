// Set-up shared by the payments webhook tests: Stripe-shaped invoices and subscriptions, the app with
// a signed delivery helper, and the admin reads that show a user's tier and activity.
import assert from 'node:assert/strict';
import { signIn, type TestApp } from '../../helpers/test-app.ts';
import { stripeDelivery } from '../../fakes/webhook-senders.ts';
import { NOW_S, SECRETS, send, webhookApp } from './webhooks-kit.ts';

export const URL = '/api/webhooks/platforms/payments';
export const SECRET = SECRETS.PAYMENTS_WEBHOOK_SECRET;
export const DAY_MS = 24 * 60 * 60 * 1000;

export function invoice(id: string, fields: Record<string, unknown> = {}) {
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

export function subscription(status: string, lookupKey: string | null = 'pro_monthly') {
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

export type PaymentsApp = Awaited<ReturnType<typeof startPaymentsApp>>;

export async function startPaymentsApp() {
  const { t, clock }: { t: TestApp; clock: Awaited<ReturnType<typeof webhookApp>>['clock'] } = await webhookApp();
  let admin = await signIn(t.app, t.database, { role: 'admin' });
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
  const tierOf = async (id: string) =>
    (await asAdmin(`/api/admin/users/${id}`)).json<{ subscriptionTier: string }>().subscriptionTier;
  /** A user's audit entries, newest first, as the admin activity operation shows them. */
  const activityOf = async (id: string) =>
    (await asAdmin(`/api/admin/users/${id}/activity?limit=100`)).json() as {
      action: string;
      actor_type: string;
      details: Record<string, unknown>;
    }[];
  const tierChanges = async (id: string) =>
    (await activityOf(id)).filter((a) => a.action === 'billing.subscription.tier_change');
  return { t, clock, post, tierOf, activityOf, tierChanges };
}
