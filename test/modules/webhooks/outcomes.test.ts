// A provider's apply answers what the delivery came to (decision 178); the pipeline stores and
// answers from that alone. Checked here on the providers themselves, with a context of fakes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authproviderProvider } from '../../../src/modules/webhooks/providers/authprovider.provider.ts';
import { paymentsProvider } from '../../../src/modules/webhooks/providers/payments.provider.ts';
import type { EffectContext } from '../../../src/modules/webhooks/providers/provider.ts';

function contextOf(provider: EffectContext['provider'], event: string, body: Record<string, unknown>): EffectContext {
  const none = async () => undefined;
  return {
    now: new Date('2026-01-01T00:00:00Z'),
    provider,
    deliveryId: 'd-1',
    event,
    body,
    headers: {},
    chat: async () => {},
    mail: async () => ({ queued: true }),
    audit: async () => {},
    findUser: none,
    findIdentity: none,
    billing: { gracePeriodDays: 7, changeTier: none, openGracePeriod: none, clearGracePeriod: async () => false },
    isSuppressed: async () => false,
    suppress: async () => true,
    deliveries: { find: async () => [], settle: async () => {} },
    payments: {
      findCustomer: none,
      rememberCustomer: async () => {},
      rememberTier: async () => {},
      rememberRaise: async () => {},
      otherCustomers: async () => [],
      recordPayment: async () => true,
    },
  };
}

describe('provider outcomes', () => {
  it('the auth hook refuses what it cannot answer and answers a token hook as processed', async () => {
    const unknown = await authproviderProvider.apply(contextOf('authprovider', 'unknown', {}));
    assert.equal(unknown.status, 'refused');
    assert.equal(unknown.answer?.status, 400);
    const token = await authproviderProvider.apply(
      contextOf('authprovider', 'custom_access_token', { claims: { sub: 'x' } }),
    );
    assert.deepEqual(token, { status: 'processed', answer: { status: 200, body: { claims: { sub: 'x' } } } });
  });

  it(
    'a subscription change of a customer nobody is linked to yet is kept unmatched; ' +
      'without a customer it is processed',
    async () => {
      const payments = paymentsProvider;
      const event = (customer?: string) => ({
        type: 'customer.subscription.updated',
        data: { object: { customer, status: 'active' } },
      });
      assert.deepEqual(await payments.apply(contextOf('payments', 'customer.subscription.updated', event('cus_1'))), {
        status: 'unmatched',
      });
      assert.deepEqual(await payments.apply(contextOf('payments', 'customer.subscription.updated', event())), {
        status: 'processed',
        answer: undefined,
      });
    },
  );
});
