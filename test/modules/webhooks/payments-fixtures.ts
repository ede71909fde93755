// Set-up shared by the payments webhook tests: Stripe-shaped invoices and subscriptions, the app with
// a signed delivery helper, the admin reads that show a user's tier and activity, and the end of a
// user's grace period.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { eq } from 'drizzle-orm';
import { users } from '../../../src/modules/users/users.tables.ts';
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

/** A subscription of `customer`, with an id of its own and the given metadata. */
export function subscriptionOf(customer: string, status: string, lookupKey = 'pro_monthly', metadata = {}) {
  return { ...subscription(status, lookupKey), id: `sub_${customer}`, customer, metadata };
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
  /** Posts an event, expects 200 and answers the status the webhook gives the delivery. */
  const statusOf = async (event: unknown) => {
    const response = await post(event);
    assert.equal(response.statusCode, 200, response.body);
    return response.json().status as string;
  };
  // No operation shows the end of a grace period: it is read from the users table.
  const graceEndsOf = async (id: string) =>
    (await t.database.db.select({ at: users.gracePeriodEndsAt }).from(users).where(eq(users.id, id)))[0]!.at;
  return { t, clock, post, tierOf, activityOf, tierChanges, statusOf, graceEndsOf };
}

/**
 * One payments app for the tests of the calling describe block: started before them and closed after
 * them. The returned function answers the started app.
 */
export function paymentsAppPerFile(): () => PaymentsApp {
  let app: PaymentsApp | undefined;
  before(async () => {
    app = await startPaymentsApp();
  });
  after(async () => {
    await app?.t.close();
  });
  return () => {
    assert.ok(app, 'the payments app starts before the tests');
    return app;
  };
}
