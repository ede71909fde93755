import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec, type LedgerEvent } from './ledger.domain.ts';
import { holdingsAt, timeWeightedReturn, xirr } from './returns.domain.ts';

const at = (day: number, hour = 12) => new Date(Date.UTC(2026, 0, day, hour));
const one = dec(1);

describe('returns over a window', () => {
  it('chains period returns with the flows taken out (time-weighted)', () => {
    // By hand: 100 grows to 110 (+10 %), then 50 is deposited (value 160); 160 grows to 176 (+10 %).
    // TWR = 1.1 × 1.1 − 1 = 0.21, whatever the deposit's size.
    const twr = timeWeightedReturn([
      { value: dec(100), flow: dec(0) },
      { value: dec(160), flow: dec(50) },
      { value: dec(176), flow: dec(0) },
    ]);
    assert.equal(twr!.toString(), '0.21');
    // A period that starts empty does not count: 0 → 100 deposited, then 100 → 90 (−10 %).
    assert.equal(
      timeWeightedReturn([
        { value: dec(0), flow: dec(0) },
        { value: dec(100), flow: dec(100) },
        { value: dec(90), flow: dec(0) },
      ])!.toString(),
      '-0.1',
    );
    assert.equal(timeWeightedReturn([{ value: dec(0), flow: dec(0) }]), null);
  });

  it('solves XIRR as spreadsheets do', () => {
    // The XIRR example of Microsoft's documentation: its answer is 0.373362535 (37.34 %), found to
    // Excel's tolerance of 0.000001 %; the two agree to 8 decimals.
    const flows = [
      ['2008-01-01', -10000],
      ['2008-03-01', 2750],
      ['2008-10-30', 4250],
      ['2009-02-15', 3250],
      ['2009-04-01', 2750],
    ].map(([d, amount]) => ({ at: Date.parse(`${d}T00:00:00Z`), amount: amount as number }));
    assert.equal(xirr(flows)!.toFixed(8), '0.37336253');
    // 100 in, 110 back one 365-day year later: exactly 10 %.
    assert.equal(
      xirr([
        { at: 0, amount: -100 },
        { at: 365 * 86_400_000, amount: 110 },
      ])!.toFixed(12),
      '0.100000000000',
    );
    assert.equal(
      xirr([
        { at: 0, amount: 100 },
        { at: 1, amount: 5 },
      ]),
      null,
      'no sign change',
    );
    // A short window annualizes steeply: 1000 → 1200 in 4 days is (1.2)^(365/4) − 1 ≈ 1.66e7.
    const steep = xirr([
      { at: 0, amount: -1000 },
      { at: 4 * 86_400_000, amount: 1200 },
    ])!;
    assert.ok(Math.abs(steep / (1.2 ** (365 / 4) - 1) - 1) < 1e-9, String(steep));
  });

  it('works the holdings back from today through the events', () => {
    // Now: 0.5 BTC, 100 USDT. At day 3 a buy of 0.5 BTC for 1000 USDT (fee 1 USDT); day 2 a deposit of 1101 USDT.
    const events: LedgerEvent[] = [
      { kind: 'deposit', at: at(2), exchange: 'binance', asset: 'USDT', amount: dec(1101), price: one },
      {
        kind: 'trade',
        at: at(3),
        exchange: 'binance',
        base: 'BTC',
        quote: 'USDT',
        side: 'buy',
        amount: dec('0.5'),
        price: dec(2000),
        total: dec(1000),
        fee: dec(1),
        feeCurrency: 'USDT',
        rate: one,
      },
    ];
    const [before, between, after] = holdingsAt(
      new Map([
        ['BTC', dec('0.5')],
        ['USDT', dec(100)],
      ]),
      events,
      [at(1).getTime(), at(2, 18).getTime(), at(4).getTime()],
    );
    const view = (m: Map<string, { toString(): string }>) =>
      Object.fromEntries([...m].map(([k, v]) => [k, v.toString()]));
    assert.deepEqual(view(after!), { BTC: '0.5', USDT: '100' });
    assert.deepEqual(view(between!), { BTC: '0', USDT: '1101' });
    assert.deepEqual(view(before!), { BTC: '0', USDT: '0' });
  });
});
