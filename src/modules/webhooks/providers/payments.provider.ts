// Payments (Stripe): paid invoices go to the ledger, failed ones open a grace period, subscription
// changes set the user's tier (the effects: payments.effects.ts).
import { Type } from 'typebox';
import { headerScheme } from '../../../platform/http/openapi.ts';
import { redactSecrets } from '../payload-redaction.ts';
import { stripeSignatureCheck } from '../signatures.ts';
import { defineWebhookProvider, MiB } from './declaration.ts';
import { applyPaymentsEvent } from './payments.effects.ts';
import { header, optionalHeader, RETRY_WINDOW_MS, str } from './provider.ts';

export const paymentsProvider = defineWebhookProvider({
  provider: 'payments',
  name: 'Payments',
  secretVariable: 'PAYMENTS_WEBHOOK_SECRET',
  route: {
    url: '/api/webhooks/platforms/payments',
    operationId: 'receivePaymentsEvent',
    summary: 'Receive a payments (Stripe) event',
    description:
      '`invoice.paid`/`invoice.payment_succeeded` record the payment in the ledger (major units, ' +
      'upper-case currency, the user matched by `metadata.user_id`, a remembered customer, else the typed e-mail); ' +
      '`invoice.payment_failed` opens a ' +
      "grace period of GRACE_PERIOD_DAYS; `customer.subscription.updated`/`deleted` set the user's " +
      'subscription tier; `checkout.session.completed` remembers the customer. Each posts a chat ' +
      'notification. The event id is the deduplication key.',
    headers: Type.Object({
      'payments-signature': optionalHeader(
        '`t=<unix>,v1=<hex HMAC-SHA256(secret, "t.body")>`; Stripe\'s `Stripe-Signature` is accepted too. 300 s tolerance.',
      ),
    }),
  },
  bodyLimit: 4 * MiB,
  security: {
    paymentsSignature: headerScheme(
      'payments-signature',
      '`t=<unix>,v1=<hex HMAC-SHA256(PAYMENTS_WEBHOOK_SECRET, "t.body")>`, within 300 s; Stripe\'s ' +
        '`Stripe-Signature` is accepted too.',
    ),
  },
  // A client secret of a payment object is not kept.
  redact: redactSecrets,
  signature: (headers, secret) =>
    stripeSignatureCheck(header(headers, 'payments-signature', 'stripe-signature'), secret),
  identify(delivery) {
    // The event id is inside the signed body, and the signed time refuses a copy after 300 s.
    const senderId = str(delivery.body.id);
    return {
      senderId,
      sameBodyWindowMs: senderId ? undefined : RETRY_WINDOW_MS,
      event: str(delivery.body.type) ?? 'unknown',
    };
  },
  ports: ['chat', 'audit', 'findUser', 'billing', 'deliveries', 'payments'],
  apply: applyPaymentsEvent,
});
