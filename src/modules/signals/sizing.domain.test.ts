import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseAmountOf } from './sizing.domain.ts';

describe('alert sizes in base units', () => {
  const at = (referencePrice: string | null, amountStep: number | null = 0.0001) => ({
    side: 'buy' as const,
    referencePrice,
    amountStep,
  });

  it('keeps an amount as given', () => {
    assert.deepEqual(baseAmountOf({ amount: '0.50' }, at(null)), { amount: '0.5' });
  });

  it('turns a quote amount into base at the reference price, rounded down to the step', () => {
    assert.deepEqual(baseAmountOf({ amountQuote: '100' }, at('60000')), { amount: '0.0016' });
    assert.deepEqual(baseAmountOf({ amountQuote: '100' }, at('60000', null)), { amount: '0.00166666' });
    assert.ok('problem' in baseAmountOf({ amountQuote: '100' }, at(null)));
    assert.ok('problem' in baseAmountOf({ amountQuote: '1' }, at('60000')), 'less than one step');
  });

  it('takes a percent of the free quote for a buy and of the free base for a sell', () => {
    assert.deepEqual(baseAmountOf({ percent: '10' }, { ...at('50000'), free: '10000' }), { amount: '0.02' });
    assert.deepEqual(baseAmountOf({ percent: '50' }, { ...at('50000'), side: 'sell', free: '0.12345' }), {
      amount: '0.0617',
    });
    assert.ok('problem' in baseAmountOf({ percent: '50' }, { ...at('50000'), free: null }));
  });
});
