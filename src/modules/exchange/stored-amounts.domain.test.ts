import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unstorableAmount } from './stored-amounts.domain.ts';

describe('stored amounts', () => {
  it('takes what numeric(38, 18) holds, finer fractions included (they are rounded)', () => {
    for (const text of [
      '0',
      '-0.5',
      '1000',
      '1e+3',
      '0.0000000000000000001',
      '99999999999999999999.999999999999999999',
    ])
      assert.equal(unstorableAmount(text), undefined, text);
    assert.equal(unstorableAmount(null), undefined);
  });

  it('refuses 21 digits before the point, non-numbers and infinities, saying why', () => {
    assert.match(unstorableAmount('100000000000000000000')!, /beyond numeric\(38, 18\)/);
    assert.match(unstorableAmount('1e+25')!, /beyond numeric/);
    assert.match(unstorableAmount('-1.2345678901234568e+23')!, /beyond numeric/);
    assert.match(
      unstorableAmount('99999999999999999999.9999999999999999999')!,
      /beyond numeric/,
      'rounds up past the bound',
    );
    assert.match(unstorableAmount('Infinity')!, /not a finite number/);
    assert.match(unstorableAmount('abc')!, /not a number/);
  });
});
