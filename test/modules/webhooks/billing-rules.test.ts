import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  subscriptionOutcome,
  tierFromSubscription,
  tierNamedIn,
  toMajorUnits,
} from '../../../src/modules/webhooks/providers/billing-rules.ts';
import { REDACTED, redactSecrets } from '../../../src/modules/webhooks/payload-redaction.ts';

const subscription = (status: string, price: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  id: 'sub_1',
  status,
  metadata,
  items: { data: [{ price: { id: 'price_1', metadata: {}, ...price } }] },
});

describe('amounts in major units', () => {
  it('divides two-decimal currencies by 100, exactly', () => {
    assert.equal(toMajorUnits(4900, 'usd'), '49.00');
    assert.equal(toMajorUnits(1, 'EUR'), '0.01');
    assert.equal(toMajorUnits('123456789012345678', 'usd'), '1234567890123456.78');
  });

  it('keeps zero-decimal currencies as they are and divides three-decimal ones by 1000', () => {
    assert.equal(toMajorUnits(5000, 'jpy'), '5000');
    assert.equal(toMajorUnits(12000, 'KRW'), '12000');
    assert.equal(toMajorUnits(12340, 'kwd'), '12.340');
  });
});

describe('subscription tier mapping', () => {
  it('finds a tier named as a word in labels, preferring the higher one', () => {
    assert.equal(tierNamedIn('pro_monthly'), 'pro');
    assert.equal(tierNamedIn('Enterprise (annual)'), 'enterprise');
    assert.equal(tierNamedIn('Basic'), 'basic');
    assert.equal(tierNamedIn('pro to enterprise upgrade'), 'enterprise');
    assert.equal(tierNamedIn('professional'), null);
    assert.equal(tierNamedIn(undefined), null);
  });

  it('reads metadata.tier first, then the price lookup key, then its nickname, then an expanded product', () => {
    assert.equal(
      tierFromSubscription(subscription('active', { lookup_key: 'basic_monthly' }, { tier: 'enterprise' })),
      'enterprise',
    );
    assert.equal(
      tierFromSubscription(subscription('active', { lookup_key: 'basic_monthly', nickname: 'Pro' })),
      'basic',
    );
    assert.equal(tierFromSubscription(subscription('active', { nickname: 'Pro plan' })), 'pro');
    assert.equal(
      tierFromSubscription(subscription('active', { product: { id: 'prod_1', name: 'Enterprise', metadata: {} } })),
      'enterprise',
    );
    assert.equal(tierFromSubscription(subscription('active', { product: 'prod_1' })), null);
  });

  it(
    'returns to free when the subscription is deleted or ' + 'has ended, and leaves the tier alone while incomplete',
    () => {
      assert.deepEqual(
        subscriptionOutcome('customer.subscription.deleted', subscription('active', { lookup_key: 'pro' })),
        {
          tier: 'free',
          clearsGracePeriod: false,
          status: 'canceled',
        },
      );
      for (const status of ['canceled', 'unpaid', 'incomplete_expired', 'paused']) {
        assert.equal(
          subscriptionOutcome('customer.subscription.updated', subscription(status, { lookup_key: 'pro' })).tier,
          'free',
          status,
        );
      }
      assert.deepEqual(
        subscriptionOutcome('customer.subscription.updated', subscription('incomplete', { lookup_key: 'pro' })),
        {
          tier: null,
          clearsGracePeriod: false,
          status: 'incomplete',
        },
      );
    },
  );

  it('grants the tier while active, trialing or past due, and ends a grace period only when in good standing', () => {
    assert.deepEqual(
      subscriptionOutcome('customer.subscription.updated', subscription('active', { lookup_key: 'pro' })),
      { tier: 'pro', clearsGracePeriod: true, status: 'active' },
    );
    assert.equal(
      subscriptionOutcome('customer.subscription.updated', subscription('trialing', { lookup_key: 'pro' }))
        .clearsGracePeriod,
      true,
    );
    assert.deepEqual(
      subscriptionOutcome('customer.subscription.updated', subscription('past_due', { lookup_key: 'pro' })),
      { tier: 'pro', clearsGracePeriod: false, status: 'past_due' },
    );
  });
});

describe('stored payload redaction', () => {
  it('hides credentials at any depth and keeps everything else', () => {
    const payload = {
      user: { email: 'a@example.com' },
      email_data: { token: '305805', token_hash: 'abc', email_action_type: 'signup', token_new: '' },
      data: { object: { client_secret: 'pi_secret', amount: 10 } },
      records: [{ password: 'hunter2', id: 1 }],
    };
    assert.deepEqual(redactSecrets(payload), {
      user: { email: 'a@example.com' },
      email_data: { token: REDACTED, token_hash: REDACTED, email_action_type: 'signup', token_new: '' },
      data: { object: { client_secret: REDACTED, amount: 10 } },
      records: [{ password: REDACTED, id: 1 }],
    });
  });
});
