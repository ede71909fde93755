import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec, moneyDecimals } from './ledger.domain.ts';
import { realizedCsv } from './realized-csv.domain.ts';

const at = (day: number, hour = 12) => new Date(Date.UTC(2026, 0, day, hour));

describe('realized.csv cells', () => {
  it('quotes a CSV field with a comma or a quote (RFC 4180), and defuses formulas', () => {
    const csv = realizedCsv(
      [
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
      ],
      'USDT',
    );
    assert.equal(csv.split('\r\n')[1], `"A,""B""",x,,${at(1).toISOString()},1.00000000,1.00,1.00,0.00,0.00,`);
    const formula = realizedCsv(
      [
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
      ],
      'USDT',
    );
    assert.equal(
      formula.split('\r\n')[1],
      `"'=HYPERLINK(""x"")",x,,${at(1).toISOString()},1.00000000,2.00,1.00,0.00,-1.00,`,
      'a formula is defused; a negative gain stays a number',
    );
  });

  it('writes values to 2 decimals in a fiat or stablecoin quote, to 8 in another (decision 893)', () => {
    const part = {
      asset: 'ETH',
      exchange: 'x',
      openedAt: at(1),
      closedAt: at(3),
      amount: dec('0.5'),
      cost: dec('0.014994'),
      proceeds: dec('0.0162'),
      fee: dec('0.000004125'),
      gain: dec('0.001201875'),
    };
    assert.equal(
      realizedCsv([part], 'BTC').split('\r\n')[1],
      `ETH,x,${at(1).toISOString()},${at(3).toISOString()},0.50000000,0.01499400,0.01620000,0.00000412,0.00120188,2`,
      'each figure to 8, half to even; the gain still adds up',
    );
    assert.equal(
      realizedCsv([part], 'usdt').split('\r\n')[1],
      `ETH,x,${at(1).toISOString()},${at(3).toISOString()},0.50000000,0.01,0.02,0.00,0.01,2`,
    );
    assert.deepEqual(
      ['USD', 'eur', 'USDT', 'USDC', 'DAI', 'FDUSD', 'TUSD', 'BUSD', 'BTC', 'eth', 'BNB'].map(moneyDecimals),
      [2, 2, 2, 2, 2, 2, 2, 2, 8, 8, 8],
    );
  });
});
