import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PaymentsHeaders } from '../webhooks.schemas.ts';
import { registerReceiver, type ReceiverDeps } from './receiver.ts';

export function paymentsRoutes(deps: ReceiverDeps): FastifyPluginAsyncTypebox {
  return async function routes(app) {
    registerReceiver(app, deps, {
      provider: 'payments',
      url: '/api/webhooks/platforms/payments',
      operationId: 'receivePaymentsEvent',
      security: ['paymentsSignature'],
      summary: 'Receive a payments (Stripe) event',
      description:
        '`invoice.paid`/`invoice.payment_succeeded` record the payment in the ledger (major units, ' +
        'upper-case currency, the user matched by the customer e-mail); `invoice.payment_failed` opens a ' +
        "grace period of GRACE_PERIOD_DAYS; `customer.subscription.updated`/`deleted` set the user's " +
        'subscription tier; `checkout.session.completed` remembers the customer. Each posts a chat ' +
        'notification. The event id is the deduplication key.',
      headers: PaymentsHeaders,
    });
  };
}
