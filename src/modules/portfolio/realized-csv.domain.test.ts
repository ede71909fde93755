import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec } from './ledger.domain.ts';
import { realizedCsv } from './realized-csv.domain.ts';

const at = (day: number, hour = 12) => new Date(Date.UTC(2026, 0, day, hour));

describe('realized.csv cells', () => {
  it('quotes a CSV field with a comma or a quote (RFC 4180), and defuses formulas', () => {
    const csv = realizedCsv([
      {
        asset: 'A,"B"',
        exchange: 'x',
        openedAt: null,
        closedAt: at(1),
        amount: dec(1),
        cost: dec(1),
        proceeds: dec(1),
        fee: dec(0),
        gain: dec(0),
      },
    ]);
    assert.equal(csv.split('\r\n')[1], `"A,""B""",x,,${at(1).toISOString()},1.00000000,1.00,1.00,0.00,0.00,`);
    const formula = realizedCsv([
      {
        asset: '=HYPERLINK("x")',
        exchange: 'x',
        openedAt: null,
        closedAt: at(1),
        amount: dec(1),
        cost: dec(2),
        proceeds: dec(1),
        fee: dec(0),
        gain: dec(-1),
      },
    ]);
    assert.equal(
      formula.split('\r\n')[1],
      `"'=HYPERLINK(""x"")",x,,${at(1).toISOString()},1.00000000,2.00,1.00,0.00,-1.00,`,
      'a formula is defused; a negative gain stays a number',
    );
  });
});
