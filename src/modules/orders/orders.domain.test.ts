import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientOrderIdFor } from '../../platform/client-order-ids.ts';
import type { VenueOrderState } from '../../platform/order-venue.ts';
import { Decimal } from 'decimal.js';
import { seeded } from '../../../test/helpers/seeded.ts';
import {
  amountAtScale,
  canMove,
  checkMarketRules,
  fillTotals,
  newFills,
  ORDER_STATUSES,
  plainAmount,
  progressFrom,
} from './orders.domain.ts';

const venue = (fields: Partial<VenueOrderState>): VenueOrderState => ({
  venueOrderId: '1',
  status: 'open',
  filled: '0',
  averagePrice: null,
  fills: [],
  ...fields,
});
const fill = (tradeId: string, amount = '1', price = '10') => ({
  tradeId,
  price,
  amount,
  fee: '0.01',
  feeCurrency: 'USDT',
  at: new Date(0),
  maker: false,
});

describe('order transitions', () => {
  it('never moves a final order and never goes back to pending', () => {
    for (const from of ['filled', 'canceled', 'expired', 'rejected'] as const)
      for (const to of ORDER_STATUSES) assert.equal(canMove(from, to), false, `${from} → ${to}`);
    for (const from of ORDER_STATUSES) assert.equal(canMove(from, 'pending'), false);
  });

  it('lets a stored order be claimed for sending, canceled or rejected, and nothing else', () => {
    assert.deepEqual(
      ORDER_STATUSES.filter((to) => canMove('pending', to)),
      ['unknown', 'canceled', 'rejected'],
    );
  });

  it('resolves unknown to whatever the venue says', () => {
    for (const to of ['open', 'partially_filled', 'filled', 'canceled', 'expired', 'rejected'] as const)
      assert.equal(canMove('unknown', to), true);
  });

  it('calls an open order with fills partially filled, and full fills filled', () => {
    const stored = { status: 'open' as const, amount: '2', filled: '0', venueOrderId: '1' };
    assert.equal(progressFrom(stored, venue({ filled: '1' }))?.status, 'partially_filled');
    assert.equal(progressFrom(stored, venue({ status: 'partially_filled', filled: '2' }))?.status, 'filled');
  });

  it('ignores a stale report that would move an order backwards or change nothing', () => {
    const stored = { status: 'filled' as const, amount: '1', filled: '1', venueOrderId: '1' };
    assert.equal(progressFrom(stored, venue({ status: 'open' })), null);
    const open = { status: 'open' as const, amount: '1', filled: '0', venueOrderId: '1' };
    assert.equal(progressFrom(open, venue({ status: 'open' })), null);
    const partly = { status: 'partially_filled' as const, amount: '2', filled: '1.5', venueOrderId: '1' };
    assert.equal(progressFrom(partly, venue({ status: 'open', filled: '1' })), null);
  });

  it('keeps only fills not stored yet, each trade id once', () => {
    assert.deepEqual(
      newFills(['a'], [fill('a'), fill('b'), fill('b')]).map((f) => f.tradeId),
      ['b'],
    );
  });

  it('sums fills exactly', () => {
    assert.deepEqual(
      fillTotals([
        { price: '0.1', amount: '0.2', fee: '0.1' },
        { price: '0.3', amount: '0.2', fee: '0.2' },
      ]),
      { filled: '0.4', cost: '0.08', fee: '0.3', averagePrice: '0.2' },
    );
    assert.equal(fillTotals([]).averagePrice, null);
  });
});

describe('market rules', () => {
  const rules = { minAmount: 0.001, minCost: 5, amountStep: 0.001, priceStep: 0.01 };
  it('refuses below the minimum, off the step or tick, and below the notional', () => {
    assert.equal(checkMarketRules(rules, { amount: '0.0005', price: '100', referencePrice: null })?.field, 'amount');
    assert.match(checkMarketRules(rules, { amount: '0.0015', price: '10000', referencePrice: null })!.msg, /step/);
    assert.equal(checkMarketRules(rules, { amount: '1', price: '10.005', referencePrice: null })?.field, 'price');
    assert.match(checkMarketRules(rules, { amount: '0.001', price: null, referencePrice: '100' })!.msg, /notional/);
    assert.equal(checkMarketRules(rules, { amount: '0.1', price: null, referencePrice: '100' }), null);
  });
});

describe('client order ids', () => {
  const id = '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b';
  it('is the order id where the venue takes it, letters and digits for OKX, within every limit', () => {
    assert.equal(clientOrderIdFor('binance', id), id);
    assert.match(clientOrderIdFor('binance', id), /^[.A-Z:/a-z0-9_-]{1,36}$/);
    assert.match(clientOrderIdFor('okx', id), /^[A-Za-z0-9]{1,32}$/);
    assert.equal(clientOrderIdFor('okx', id), clientOrderIdFor('okx', id));
  });
});

describe('amounts as text (decision 550)', () => {
  // What decimal.js writes is the reference: the text paths must give the same for every value.
  const edges = [
    '0',
    '-0',
    '0.000000000000000000',
    '-0.000',
    '1',
    '10',
    '100.000',
    '12.500',
    '-1.50',
    '0.001000000000000000',
    '123456789012345678901.123456789012345678',
    '5.',
    '0.1000000000000000000001',
    '0.0000000000000000005',
    '0.0000000000000000015',
    '1e-7',
    '1E+3',
    '00012.10',
    '.5',
    '+3.10',
    '-0.0000000000000000001',
  ];
  // Seeded, so a failure names a value that every run draws again.
  const random = seeded(550);
  const randomAmounts = Array.from({ length: 2_000 }, (_, i) => {
    const whole = i % 7 === 0 ? '0' : String(Math.floor(random() * 10 ** (i % 12)));
    const fraction = Array.from({ length: i % 23 }, () => String(Math.floor(random() * 10))).join('');
    return `${i % 11 === 0 ? '-' : ''}${whole}${fraction || i % 3 ? `.${fraction}` : ''}`;
  });

  it('plainAmount writes what Decimal#toFixed() writes', () => {
    for (const value of [...edges, ...randomAmounts])
      assert.equal(plainAmount(value), new Decimal(value).toFixed(), value);
  });

  it('amountAtScale writes what Decimal#toFixed(scale) writes', () => {
    for (const scale of [0, 2, 8, 18])
      for (const value of [...edges, ...randomAmounts])
        assert.equal(amountAtScale(value, scale), new Decimal(value).toFixed(scale), `${value} at ${scale}`);
  });
});
