import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  D,
  fillResting,
  INSUFFICIENT_BALANCE,
  placeOrder,
  priceWentThrough,
  releaseLock,
  walkBook,
  type Book,
  type PaperOrder,
  type Placement,
} from './matching.domain.ts';

const fees = { maker: new D('0.001'), taker: new D('0.002') };
const book: Book = {
  bids: [
    ['99', '1'],
    ['98', '2'],
    ['97', '3'],
  ],
  asks: [
    ['101', '1'],
    ['102', '2'],
    ['103', '3'],
  ],
};
const rich = { base: new D(100), quote: new D(1_000_000) };
const order = (o: Partial<Omit<PaperOrder, 'amount' | 'price'>> & { amount: string; price?: string }): PaperOrder => ({
  side: o.side ?? 'buy',
  type: o.type ?? (o.price ? 'limit' : 'market'),
  timeInForce: o.timeInForce ?? 'GTC',
  amount: new D(o.amount),
  price: o.price ? new D(o.price) : null,
});

/** The placement with its decimals as strings, to compare with hand-computed figures. */
function plain(p: Placement) {
  if (p.kind === 'refused') throw new Error(`refused: ${p.reason}`);
  return {
    status: p.status,
    executions: p.executions.map((e) => [e.price.toString(), e.amount.toString(), e.fee.toString(), e.feeIn, e.maker]),
    resting: p.resting.toString(),
    deltas: Object.fromEntries(
      ['base', 'quote'].map((asset) => {
        const mine = p.deltas.filter((d) => d.asset === asset);
        const sum = (k: 'free' | 'locked') => mine.reduce((s, d) => s.plus(d[k]), new D(0)).toString();
        return [asset, { free: sum('free'), locked: sum('locked') }];
      }),
    ),
  };
}

describe('walking the book', () => {
  it('takes levels best first, the last one partly', () => {
    const walked = walkBook(book.asks, 'buy', new D('2.5'), null);
    assert.deepEqual(
      walked.takes.map((t) => [t.price.toString(), t.amount.toString()]),
      [
        ['101', '1'],
        ['102', '1.5'],
      ],
    );
    assert.equal(walked.left.toString(), '0');
  });

  it('stops at a limit price and skips empty levels', () => {
    const walked = walkBook(
      [
        ['99', '0'],
        ['98', '2'],
        ['97', '3'],
      ],
      'sell',
      new D(10),
      new D(98),
    );
    assert.deepEqual(
      walked.takes.map((t) => t.price.toString()),
      ['98'],
    );
    assert.equal(walked.left.toString(), '8');
  });
});

describe('placing an order', () => {
  it('a market buy walks the asks and pays the taker fee in the base asset received', () => {
    // 1 × 101 + 1.5 × 102 = 254 USDT; fee 0.2 % of 2.5 BTC = 0.005 BTC.
    assert.deepEqual(plain(placeOrder(order({ amount: '2.5' }), book, fees, rich)), {
      status: 'filled',
      executions: [
        ['101', '1', '0.002', 'base', false],
        ['102', '1.5', '0.003', 'base', false],
      ],
      resting: '0',
      deltas: { base: { free: '2.495', locked: '0' }, quote: { free: '-254', locked: '0' } },
    });
  });

  it('a market sell walks the bids and pays the fee in the quote asset', () => {
    // 1 × 99 + 1 × 98 = 197; fee 0.2 % of each execution's value: 0.198 + 0.196.
    assert.deepEqual(plain(placeOrder(order({ side: 'sell', amount: '2' }), book, fees, rich)), {
      status: 'filled',
      executions: [
        ['99', '1', '0.198', 'quote', false],
        ['98', '1', '0.196', 'quote', false],
      ],
      resting: '0',
      deltas: { base: { free: '-2', locked: '0' }, quote: { free: '196.606', locked: '0' } },
    });
  });

  it('a market order larger than the book fills the book and the rest expires', () => {
    const placed = placeOrder(order({ amount: '10' }), book, fees, rich);
    assert.equal(placed.kind === 'placed' && placed.status, 'expired');
    assert.equal(placed.kind === 'placed' && placed.executions.length, 3);
  });

  it('a crossing GTC limit buy fills up to its price and rests the rest, locking its quote', () => {
    // Takes 1 @ 101 and 2 @ 102 (103 is above the limit); 1 rests at 102, locking 102 USDT.
    assert.deepEqual(plain(placeOrder(order({ amount: '4', price: '102' }), book, fees, rich)), {
      status: 'partially_filled',
      executions: [
        ['101', '1', '0.002', 'base', false],
        ['102', '2', '0.004', 'base', false],
      ],
      resting: '1',
      deltas: { base: { free: '2.994', locked: '0' }, quote: { free: '-407', locked: '102' } },
    });
  });

  it('a limit sell below the bids does not cross and rests entirely, locking its base', () => {
    assert.deepEqual(plain(placeOrder(order({ side: 'sell', amount: '2', price: '100' }), book, fees, rich)), {
      status: 'open',
      executions: [],
      resting: '2',
      deltas: { base: { free: '-2', locked: '2' }, quote: { free: '0', locked: '0' } },
    });
  });

  it('IOC fills what crosses and expires the rest, locking nothing', () => {
    const placed = plain(placeOrder(order({ amount: '4', price: '102', timeInForce: 'IOC' }), book, fees, rich));
    assert.equal(placed.status, 'expired');
    assert.deepEqual([placed.resting, placed.deltas.quote], ['0', { free: '-305', locked: '0' }]);
  });

  it('FOK fills everything at once or nothing', () => {
    const none = plain(placeOrder(order({ amount: '4', price: '102', timeInForce: 'FOK' }), book, fees, rich));
    assert.deepEqual([none.status, none.executions, none.deltas.quote?.free], ['expired', [], '0']);
    const all = plain(placeOrder(order({ amount: '3', price: '102', timeInForce: 'FOK' }), book, fees, rich));
    assert.deepEqual([all.status, all.executions.length], ['filled', 2]);
  });

  it('refuses what the free balance cannot pay: a limit buy at its price, a market buy at its cost, a sell', () => {
    const poor = { base: new D(1), quote: new D(300) };
    // 3 × 101 = 303 > 300 at the limit, though the book would fill part cheaper.
    assert.deepEqual(placeOrder(order({ amount: '3', price: '101' }), book, fees, poor), {
      kind: 'refused',
      reason: INSUFFICIENT_BALANCE,
    });
    // Walking: 101 + 2 × 102 = 305 > 300.
    assert.equal(placeOrder(order({ amount: '3' }), book, fees, poor).kind, 'refused');
    assert.equal(placeOrder(order({ side: 'sell', amount: '1.5' }), book, fees, poor).kind, 'refused');
    assert.equal(placeOrder(order({ side: 'sell', amount: '1' }), book, fees, poor).kind, 'placed');
  });

  it('refuses a zero amount and a limit without a price', () => {
    assert.equal(placeOrder(order({ amount: '0' }), book, fees, rich).kind, 'refused');
    assert.equal(placeOrder({ ...order({ amount: '1' }), type: 'limit' }, book, fees, rich).kind, 'refused');
  });
});

describe('resting orders', () => {
  const seen = (low: string, high: string) => ({ low: new D(low), high: new D(high) });

  it('fill only when the last price goes through, not on a touch', () => {
    assert.equal(priceWentThrough('buy', new D(100), seen('100', '105')), false);
    assert.equal(priceWentThrough('buy', new D(100), seen('99.99', '105')), true);
    assert.equal(priceWentThrough('sell', new D(100), seen('95', '100')), false);
    assert.equal(priceWentThrough('sell', new D(100), seen('95', '100.01')), true);
  });

  it('a resting buy fills at its price with the maker fee, paid from its lock', () => {
    const { execution, deltas } = fillResting('buy', new D(100), new D(2), fees.maker);
    assert.deepEqual([execution.price.toString(), execution.fee.toString(), execution.maker], ['100', '0.002', true]);
    assert.deepEqual(
      deltas.map((d) => [d.asset, d.free.toString(), d.locked.toString()]),
      [
        ['quote', '0', '-200'],
        ['base', '1.998', '0'],
      ],
    );
  });

  it('a resting sell fills into quote less the maker fee; a cancel releases the lock', () => {
    const { deltas } = fillResting('sell', new D(100), new D(2), fees.maker);
    assert.deepEqual(
      deltas.map((d) => [d.asset, d.free.toString(), d.locked.toString()]),
      [
        ['base', '0', '-2'],
        ['quote', '199.8', '0'],
      ],
    );
    const release = releaseLock('buy', new D(2), new D(100));
    assert.deepEqual([release.asset, release.free.toString(), release.locked.toString()], ['quote', '200', '-200']);
  });
});
