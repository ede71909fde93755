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
