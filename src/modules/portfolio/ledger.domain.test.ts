import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEvents, dec, emptyLedger, type LedgerEvent } from './ledger.domain.ts';
import { restoreLedger, storeLedger } from './ledger-state.domain.ts';
import { realizedCsv } from './realized-csv.domain.ts';
import { summarize } from './summary.domain.ts';

const at = (day: number, hour = 12) => new Date(Date.UTC(2026, 0, day, hour));
const one = dec(1);
const trade = (
  fields: Omit<
    Extract<LedgerEvent, { kind: 'trade' }>,
    'kind' | 'amount' | 'price' | 'total' | 'fee' | 'rate' | 'feeRate'
  > & {
    amount: string;
    price: string;
    fee: string;
    feeRate?: string;
  },
): LedgerEvent => ({
  ...fields,
  kind: 'trade',
  amount: dec(fields.amount),
  price: dec(fields.price),
  total: dec(fields.amount).times(fields.price),
  fee: dec(fields.fee),
  rate: one,
  feeRate: fields.feeRate === undefined ? undefined : dec(fields.feeRate),
});

/**
 * The golden case, every figure worked out by hand below (USDT is the report quote):
 *
 * Jan 1  deposit 2000 USDT (binance): no lot (the quote is cash); net deposits 2000.
 * Jan 1  deposit 1 BNB at 300: lot BNB 1 @ cost 300; net deposits 2300.
 * Jan 2  buy 0.01 BTC @ 40000 = 400, fee 0.4 USDT: lot A 0.01 BTC, cost 400.4. fees 0.4.
 * Jan 3  buy 0.02 BTC @ 45000 = 900, fee 0.00002 BTC: lot B 0.01998 BTC, cost 900
 *        (u = 900 / 0.01998 = 5000000/111 = 45045.045045… per BTC). fee value 0.00002 × 45000 = 0.9; fees 1.3.
 * Jan 4  buy 0.01 BTC @ 50000 = 500, fee 0.001 BNB with BNB at 320 (= 0.32): lot C 0.01 BTC, cost 500.32.
 *        Spending the BNB closes 0.001 of the BNB lot: cost 0.3, proceeds 0.32, gain 0.02. fees 1.62.
 * Jan 5  sell 0.015 BTC @ 60000 = 900, fee 0.9 USDT: closes A (0.01: cost 400.4, proceeds 600, fee 0.6,
 *        gain 199) and 0.005 of B (cost 0.005u = 25000/111 = 225.2252…, proceeds 300, fee 0.3,
 *        gain 299.7 − 25000/111 = 74.4747…). fees 2.52.
 * Jan 6  withdrawal (outside) 0.001 BTC, fee 0.0001 BTC, BTC at 55000: net deposits 2300 − 55 = 2245;
 *        0.0011 of B closes at its value: cost 0.0011u = 5500/111 = 49.5495…, proceeds 60.5, fee 5.5,
 *        gain 55 − 5500/111 = 5.4504…. fees 8.02. B left: 0.01388.
 * Jan 7  transfer 0.005 BTC binance → kraken (fee 0): the oldest 0.005 of B moves, nothing realized,
 *        net deposits unchanged.
 * Jan 8  sell 0.01 BTC on kraken @ 70000 = 700, fee 0.7 USDT: closes the moved 0.005 and 0.005 of B
 *        (each cost 25000/111, proceeds 350, fee 0.35, gain 349.65 − 25000/111 = 124.4247…). fees 8.72.
 *
 * Left: BTC 0.00388 of B (cost 0.00388u = 19400/111 = 174.7747…) and C (0.01, 500.32): 0.01388 BTC,
 * cost 675.0947…; BNB 0.999, cost 299.7. USDT: 2000 − 400.4 − 900 − 500 + 899.1 + 699.3 = 1798.
 * BTC realized: 199 + 299.7 + 55 + 2 × 349.65 − (25000 + 5500 + 50000)/111 = 1253 − 725.2252… = 527.7747….
 *
 * Valued at BTC 65000, BNB 310: BTC 902.20 (cost 675.09, unrealized 227.11, realized 527.77);
 * BNB 309.69 (cost 299.70, unrealized 9.99, realized 0.02); USDT 1798.00 at cost. Totals: value
 * 3009.89, cost 2772.79, unrealized 237.10, realized 527.79, fees 8.72, net deposits 2245.00; and
 * value − net deposits = 764.89 = realized + unrealized.
 */
const golden: LedgerEvent[] = [
  { kind: 'deposit', at: at(1), exchange: 'binance', asset: 'USDT', amount: dec(2000), price: one },
  { kind: 'deposit', at: at(1), exchange: 'binance', asset: 'BNB', amount: dec(1), price: dec(300) },
  trade({
    at: at(2),
    exchange: 'binance',
    base: 'BTC',
    quote: 'USDT',
    side: 'buy',
    amount: '0.01',
    price: '40000',
    fee: '0.4',
    feeCurrency: 'USDT',
  }),
  trade({
    at: at(3),
    exchange: 'binance',
    base: 'BTC',
    quote: 'USDT',
    side: 'buy',
    amount: '0.02',
    price: '45000',
    fee: '0.00002',
    feeCurrency: 'BTC',
  }),
  trade({
    at: at(4),
    exchange: 'binance',
    base: 'BTC',
    quote: 'USDT',
    side: 'buy',
    amount: '0.01',
    price: '50000',
    fee: '0.001',
    feeCurrency: 'BNB',
    feeRate: '320',
  }),
  trade({
    at: at(5),
    exchange: 'binance',
    base: 'BTC',
    quote: 'USDT',
    side: 'sell',
    amount: '0.015',
    price: '60000',
    fee: '0.9',
    feeCurrency: 'USDT',
  }),
  {
    kind: 'withdrawal',
    at: at(6),
    exchange: 'binance',
    asset: 'BTC',
    amount: dec('0.001'),
    fee: dec('0.0001'),
    price: dec(55000),
  },
  {
    kind: 'transfer',
    at: at(7),
    from: 'binance',
    to: 'kraken',
    asset: 'BTC',
    amount: dec('0.005'),
    fee: dec(0),
    price: dec(56000),
  },
  trade({
    at: at(8),
    exchange: 'kraken',
    base: 'BTC',
    quote: 'USDT',
    side: 'sell',
    amount: '0.01',
    price: '70000',
    fee: '0.7',
    feeCurrency: 'USDT',
  }),
];

const n = (value: { toString(): string } | null) => (value === null ? null : Number(value.toString()));

describe('portfolio FIFO ledger (golden case)', () => {
  const ledger = applyEvents(emptyLedger('USDT'), golden);

  it('keeps the lots FIFO leaves, with the moved part on the venue it went to', () => {
    const btc = ledger.lots.get('BTC')!;
    assert.deepEqual(
      btc.map((l) => [l.exchange, l.openedAt.toISOString(), l.amount.toString()]),
      [
        ['binance', at(3).toISOString(), '0.00388'],
        ['binance', at(4).toISOString(), '0.01'],
      ],
    );
    assert.equal(btc[0]!.cost.toDecimalPlaces(10).toString(), '174.7747747748', '19400/111');
    assert.equal(btc[1]!.cost.toString(), '500.32');
    assert.deepEqual(
      ledger.lots.get('BNB')!.map((l) => [l.amount.toString(), l.cost.toString()]),
      [['0.999', '299.7']],
    );
    assert.equal(ledger.lots.get('USDT'), undefined, 'the quote is cash, never a lot');
  });

  it('realizes exactly what was sold or left, and nothing on the transfer', () => {
    assert.equal(ledger.realized.get('BTC')!.toDecimalPlaces(10).toString(), '527.7747747748', '1253 − 80500/111');
    assert.equal(ledger.realized.get('BNB')!.toString(), '0.02');
    assert.equal(ledger.fees.toString(), '8.72');
    assert.equal(ledger.netDeposits.toString(), '2245');
  });

  it('summarizes with every total the sum of its rounded parts', () => {
    const summary = summarize(ledger, [
      { asset: 'BTC', amount: dec('0.00888'), price: dec(65000) },
      { asset: 'BTC', amount: dec('0.005'), price: dec(65000) },
      { asset: 'BNB', amount: dec('0.999'), price: dec(310) },
      { asset: 'USDT', amount: dec('1798'), price: null },
    ]);
    assert.deepEqual(
      summary.assets.map((a) => [
        a.asset,
        n(a.amount),
        n(a.price),
        n(a.value),
        n(a.cost_basis),
        n(a.unrealized_pnl),
        n(a.realized_pnl),
      ]),
      [
        ['BNB', 0.999, 310, 309.69, 299.7, 9.99, 0.02],
        ['BTC', 0.01388, 65000, 902.2, 675.09, 227.11, 527.77],
        ['USDT', 1798, 1, 1798, 1798, 0, 0],
      ],
    );
    assert.deepEqual(
      [
        summary.value,
        summary.cost_basis,
        summary.unrealized_pnl,
        summary.realized_pnl,
        summary.fees,
        summary.net_deposits,
      ].map(n),
      [3009.89, 2772.79, 237.1, 527.79, 8.72, 2245],
    );
    // value − net deposits = realized + unrealized: nothing is lost between the parts.
    assert.equal(
      summary.value.minus(summary.net_deposits).toString(),
      summary.realized_pnl.plus(summary.unrealized_pnl).toString(),
    );
  });

  it('writes one RFC 4180 row per closed lot part', () => {
    assert.equal(
      realizedCsv(ledger.closed, 'USDT'),
      [
        'asset,exchange,opened_at,closed_at,amount,cost,proceeds,fee,gain,holding_days',
        `BNB,binance,${at(1).toISOString()},${at(4).toISOString()},0.00100000,0.30,0.32,0.00,0.02,3`,
        `BTC,binance,${at(2).toISOString()},${at(5).toISOString()},0.01000000,400.40,600.00,0.60,199.00,3`,
        `BTC,binance,${at(3).toISOString()},${at(5).toISOString()},0.00500000,225.23,300.00,0.30,74.47,2`,
        `BTC,binance,${at(3).toISOString()},${at(6).toISOString()},0.00110000,49.55,60.50,5.50,5.45,3`,
        `BTC,kraken,${at(3).toISOString()},${at(8).toISOString()},0.00500000,225.23,350.00,0.35,124.42,5`,
        `BTC,kraken,${at(3).toISOString()},${at(8).toISOString()},0.00500000,225.23,350.00,0.35,124.42,5`,
        '',
      ].join('\r\n'),
    );
  });
});

describe('the ledger kept between requests', () => {
  it('stores and restores exactly, and applying the rest to a stored half gives the whole', () => {
    const half = restoreLedger(
      JSON.parse(JSON.stringify(storeLedger(applyEvents(emptyLedger('USDT'), golden.slice(0, 5))))),
    );
    const whole = applyEvents(emptyLedger('USDT'), golden);
    applyEvents(half, golden.slice(5));
    assert.deepEqual(storeLedger(half), storeLedger(whole));
  });
});

describe('portfolio FIFO rules one by one', () => {
  it('sells beyond every known lot at no gain, with no opening date', () => {
    // 1 ETH held from before the history, sold at 3000 with a 3 USDT fee: cost taken as 2997, gain 0.
    const ledger = applyEvents(emptyLedger('USDT'), [
      trade({
        at: at(2),
        exchange: 'binance',
        base: 'ETH',
        quote: 'USDT',
        side: 'sell',
        amount: '1',
        price: '3000',
        fee: '3',
        feeCurrency: 'USDT',
      }),
    ]);
    assert.deepEqual(
      ledger.closed.map((p) => [
        p.openedAt,
        p.amount.toString(),
        p.cost.toString(),
        p.proceeds.toString(),
        p.fee.toString(),
        p.gain.toString(),
      ]),
      [[null, '1', '2997', '3000', '3', '0']],
    );
  });

  it("pays for a non-quote pair by disposing of the quote asset at the fill's value", () => {
    // 1 ETH deposited at 2000; buy 0.01 BTC for 0.2 ETH (fee 0.0002 ETH) when ETH is 2500 USDT:
    // BTC lot cost (0.2 + 0.0002) × 2500 = 500.5; ETH 0.2002 closed: cost 400.4, proceeds 500.5, gain 100.1.
    const ledger = applyEvents(emptyLedger('USDT'), [
      { kind: 'deposit', at: at(1), exchange: 'binance', asset: 'ETH', amount: dec(1), price: dec(2000) },
      {
        ...(trade({
          at: at(2),
          exchange: 'binance',
          base: 'BTC',
          quote: 'ETH',
          side: 'buy',
          amount: '0.01',
          price: '20',
          fee: '0.0002',
          feeCurrency: 'ETH',
        }) as object),
        rate: dec(2500),
      } as LedgerEvent,
    ]);
    assert.deepEqual(
      ledger.lots.get('BTC')!.map((l) => [l.amount.toString(), l.cost.toString()]),
      [['0.01', '500.5']],
    );
    assert.deepEqual(
      ledger.lots.get('ETH')!.map((l) => [l.amount.toString(), l.cost.toString()]),
      [['0.7998', '1599.6']],
    );
    assert.equal(ledger.realized.get('ETH')!.toString(), '100.1');
    assert.equal(ledger.fees.toString(), '0.5', '0.0002 ETH × 2500');
  });

  it('a sell with its fee in the base asset gives up the fee units as well', () => {
    // Buy 1 SOL @ 100 (no fee), sell 0.5 @ 120 with fee 0.001 SOL: 0.501 SOL leave; gross 60.12,
    // fee 0.12, cost 50.1, gain 9.9. 0.499 SOL left at cost 49.9.
    const ledger = applyEvents(emptyLedger('USDT'), [
      trade({
        at: at(1),
        exchange: 'binance',
        base: 'SOL',
        quote: 'USDT',
        side: 'buy',
        amount: '1',
        price: '100',
        fee: '0',
        feeCurrency: null,
      }),
      trade({
        at: at(2),
        exchange: 'binance',
        base: 'SOL',
        quote: 'USDT',
        side: 'sell',
        amount: '0.5',
        price: '120',
        fee: '0.001',
        feeCurrency: 'SOL',
      }),
    ]);
    const [part] = ledger.closed;
    assert.deepEqual([part!.amount, part!.proceeds, part!.fee, part!.cost, part!.gain].map(String), [
      '0.501',
      '60.12',
      '0.12',
      '50.1',
      '9.9',
    ]);
    assert.deepEqual(
      ledger.lots.get('SOL')!.map((l) => [l.amount.toString(), l.cost.toString()]),
      [['0.499', '49.9']],
    );
  });

  it('a fee paid in the quote on a withdrawal is a realized loss of the quote', () => {
    // 1000 USDT in, 100 out with a fee of 1 on top: net deposits 900, 899 held, realized −1;
    // value − net deposits = 899 − 900 = −1 = realized + unrealized (0).
    const ledger = applyEvents(emptyLedger('USDT'), [
      { kind: 'deposit', at: at(1), exchange: 'binance', asset: 'USDT', amount: dec(1000), price: one },
      { kind: 'withdrawal', at: at(2), exchange: 'binance', asset: 'USDT', amount: dec(100), fee: dec(1), price: one },
    ]);
    const summary = summarize(ledger, [{ asset: 'USDT', amount: dec(899), price: null }]);
    assert.deepEqual(
      [summary.value, summary.net_deposits, summary.realized_pnl, summary.unrealized_pnl, summary.fees].map(n),
      [899, 900, -1, 0, 1],
    );
    assert.equal(
      realizedCsv(ledger.closed, 'USDT').split('\r\n')[1],
      `USDT,binance,,${at(2).toISOString()},1.00000000,1.00,1.00,1.00,-1.00,`,
    );
  });
});
