import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { indexSymbols, resolveSymbol, splitSymbolList } from './symbols.domain.ts';

const index = indexSymbols([
  { symbol: 'BTCUSDT', base: 'BTC', quote: 'USDT', status: 'TRADING' },
  { symbol: 'ETHBTC', base: 'ETH', quote: 'BTC', status: 'TRADING' },
  { symbol: '1000SATSUSDT', base: '1000SATS', quote: 'USDT', status: 'TRADING' },
  { symbol: 'LUNAUSDT', base: 'LUNA', quote: 'USDT', status: 'BREAK' },
]);

describe('symbols', () => {
  it('resolves BTCUSDT, BTC/USDT and BTC-USDT in any case to the listed pair', () => {
    for (const input of ['BTCUSDT', 'btcusdt', 'BTC/USDT', 'btc-usdt', ' Btc/Usdt ']) {
      assert.equal(resolveSymbol(index, input)?.symbol, 'BTCUSDT', input);
    }
    assert.equal(resolveSymbol(index, '1000sats-usdt')?.base, '1000SATS');
  });

  it('takes base and quote from the listing, never from guessing', () => {
    assert.equal(resolveSymbol(index, 'USDT/BTC'), undefined, 'the reverse pair is not listed');
    assert.equal(resolveSymbol(index, 'BTC_USDT'), undefined);
    assert.equal(resolveSymbol(index, 'BTC/USDT/X'), undefined);
    assert.equal(resolveSymbol(index, ''), undefined);
  });

  it('lists trading symbols apart from the rest', () => {
    assert.deepEqual(
      index.trading.map((s) => s.symbol),
      ['BTCUSDT', 'ETHBTC', '1000SATSUSDT'],
    );
    assert.equal(resolveSymbol(index, 'LUNAUSDT')?.status, 'BREAK');
  });

  it('splits comma-separated lists, dropping blanks', () => {
    assert.deepEqual(splitSymbolList(' btcusdt, ,ETH/BTC,,'), ['btcusdt', 'ETH/BTC']);
    assert.deepEqual(splitSymbolList(' , '), []);
  });
});
