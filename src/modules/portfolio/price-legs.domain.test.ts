import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec } from './ledger.domain.ts';
import { priceLegs, priceThrough } from './price-legs.domain.ts';

describe('pricing an asset in the report quote', () => {
  const pairs = new Map([
    ['BTC/USDT', 'BTCUSDT'],
    ['ETH/BTC', 'ETHBTC'],
    ['USDT/TRY', 'USDTTRY'],
  ]);
  const symbolOf = (pair: string) => pairs.get(pair);

  it('takes a direct pair, its inverse, or one bridge', () => {
    assert.deepEqual(priceLegs('BTC', 'USDT', symbolOf), [{ symbol: 'BTCUSDT', invert: false }]);
    assert.deepEqual(priceLegs('USDT', 'BTC', symbolOf), [{ symbol: 'BTCUSDT', invert: true }]);
    assert.deepEqual(priceLegs('ETH', 'USDT', symbolOf), [
      { symbol: 'ETHBTC', invert: false },
      { symbol: 'BTCUSDT', invert: false },
    ]);
    assert.deepEqual(priceLegs('USDT', 'USDT', symbolOf), []);
    assert.equal(priceLegs('XYZ', 'USDT', symbolOf), null);
  });

  it('multiplies and divides exactly', () => {
    // ETH in TRY: 0.05 BTC × 60000 USDT × 40 TRY = 120000 TRY; BTC in TRY via USDT is 2,400,000.
    const prices = new Map([
      ['ETHBTC', dec('0.05')],
      ['BTCUSDT', dec('60000')],
      ['USDTTRY', dec('40')],
    ]);
    const priceOf = (s: string) => prices.get(s) ?? null;
    assert.equal(priceThrough(priceLegs('BTC', 'TRY', symbolOf)!, priceOf)!.toString(), '2400000');
    assert.equal(priceThrough(priceLegs('TRY', 'BTC', symbolOf)!, priceOf)!.toString(), dec(1).div(2400000).toString());
    assert.equal(priceThrough([{ symbol: 'NOPE', invert: false }], priceOf), null);
  });
});
