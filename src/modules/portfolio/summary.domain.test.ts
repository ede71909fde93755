import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEvents, dec, emptyLedger } from './ledger.domain.ts';
import { summarize } from './summary.domain.ts';

const at = (day: number, hour = 12) => new Date(Date.UTC(2026, 0, day, hour));
const n = (value: { toString(): string } | null) => (value === null ? null : Number(value.toString()));

describe('valuing holdings against the lots', () => {
  it("costs units held beyond every lot at today's price, and an unpriced asset at 0", () => {
    // 2 BTC held, one lot of 1 at cost 30000; BTC at 60000: cost 30000 + 60000 = 90000, unrealized 30000.
    const ledger = applyEvents(emptyLedger('USDT'), [
      { kind: 'deposit', at: at(1), exchange: 'binance', asset: 'BTC', amount: dec(1), price: dec(30000) },
    ]);
    const summary = summarize(ledger, [
      { asset: 'BTC', amount: dec(2), price: dec(60000) },
      { asset: 'ZZZ', amount: dec(5), price: null },
    ]);
    assert.deepEqual(
      summary.assets.map((a) => [a.asset, n(a.value), n(a.cost_basis), n(a.unrealized_pnl)]),
      [
        ['BTC', 120000, 90000, 30000],
        ['ZZZ', 0, 0, 0],
      ],
    );
  });
});

describe('valuing again at a new price', () => {
  it('walks the lots once per ledger and held amount, not again for a price change (decision 890)', () => {
    const deposits = Array.from({ length: 50 }, (_, i) => ({
      kind: 'deposit' as const,
      at: new Date(at(1).getTime() + i * 60_000),
      exchange: 'binance',
      asset: 'BTC',
      amount: dec('0.1'),
      price: dec(20000 + i),
    }));
    const ledger = applyEvents(emptyLedger('USDT'), deposits);
    // The lots as the summary sees them, each read of a lot counted.
    let reads = 0;
    const lots = ledger.lots.get('BTC')!;
    ledger.lots.set(
      'BTC',
      new Proxy(lots, {
        get: (target, key, receiver) => {
          if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
          return Reflect.get(target, key, receiver);
        },
      }),
    );
    const kept = new Map();
    const first = summarize(ledger, [{ asset: 'BTC', amount: dec(5), price: dec(60000) }], kept);
    assert.equal(reads, 50, 'the first valuation walks every lot');
    const second = summarize(ledger, [{ asset: 'BTC', amount: dec(5), price: dec(61000) }], kept);
    assert.equal(reads, 50, 'a new price reads no lot again');
    assert.equal(n(second.cost_basis), n(first.cost_basis));
    assert.equal(n(second.value), 305000);
    // The cost of the newest 4 BTC: the lots 10..49 (price 20010..20049, 0.1 each) = 0.1 × Σ.
    const third = summarize(ledger, [{ asset: 'BTC', amount: dec(4), price: dec(61000) }], kept);
    assert.equal(reads, 90, 'a new held amount walks the newest lots again');
    assert.equal(n(third.cost_basis), 80118);
  });
});
