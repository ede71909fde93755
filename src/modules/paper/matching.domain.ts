// The paper engine's matching rules, pure (docs/decisions/215): an order walks the venue's book level
// by level as the venue gives it, pays the taker fee on what it takes, and a limit order's remainder
// rests with its funds locked until the last price goes through its price (maker fee) or it is
// canceled. Fees are charged in the asset received, as Binance does without BNB burn: a buy pays in
// the base asset, a sell in the quote asset. Every amount is a Decimal; nothing here reads a clock.
import { Decimal } from 'decimal.js';
import type { OrderSide, OrderType, TimeInForce, VenueOrderStatus } from '../../platform/order-venue.ts';

/** Wide enough for a price times an amount times a fee rate without rounding. */
export const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_EVEN });
export type Dec = InstanceType<typeof D>;

/** One price level as the venue sends it: [price, amount], decimal strings. */
export type Level = readonly [string, string];

export interface Book {
  /** Best (highest) first. */
  bids: readonly Level[];
  /** Best (lowest) first. */
  asks: readonly Level[];
}

export interface FeeRates {
  maker: Dec;
  taker: Dec;
}

export interface PaperOrder {
  side: OrderSide;
  type: OrderType;
  timeInForce: TimeInForce;
  /** Base units. */
  amount: Dec;
  /** Limit orders only. */
  price: Dec | null;
}

export interface Execution {
  price: Dec;
  amount: Dec;
  fee: Dec;
  /** `base` or `quote`: the asset received. */
  feeIn: 'base' | 'quote';
  maker: boolean;
}

/** A change of one asset's balance: `free` and `locked` deltas (either may be negative). */
export interface BalanceDelta {
  asset: 'base' | 'quote';
  free: Dec;
  locked: Dec;
}

export type Placement =
  | { kind: 'refused'; reason: string }
  | {
      kind: 'placed';
      status: VenueOrderStatus;
      executions: Execution[];
      /** Base units left resting at the limit price (0 unless status is open or partially_filled). */
      resting: Dec;
      deltas: BalanceDelta[];
      /** Why the order ended without filling entirely (expired), in the venue's manner. */
      reason?: string;
    };

export const INSUFFICIENT_BALANCE = 'Account has insufficient balance for requested action.';

const ZERO = new D(0);

/** Takes liquidity from one side of the book, best level first, up to `amount` and, for a limit, its price. */
export function walkBook(levels: readonly Level[], side: OrderSide, amount: Dec, limit: Dec | null) {
  const takes: { price: Dec; amount: Dec }[] = [];
  let left = amount;
  for (const [rawPrice, rawAmount] of levels) {
    if (left.lte(0)) break;
    const price = new D(rawPrice);
    const size = new D(rawAmount);
    if (limit && (side === 'buy' ? price.gt(limit) : price.lt(limit))) break;
    if (size.lte(0)) continue;
    const take = D.min(size, left);
    takes.push({ price, amount: take });
    left = left.minus(take);
  }
  return { takes, filled: amount.minus(left), left };
}

/** The fee of one execution, in the asset received. */
export function feeOf(side: OrderSide, price: Dec, amount: Dec, rate: Dec): Dec {
  return side === 'buy' ? amount.times(rate) : price.times(amount).times(rate);
}

function execution(side: OrderSide, price: Dec, amount: Dec, rate: Dec, maker: boolean): Execution {
  return { price, amount, fee: feeOf(side, price, amount, rate), feeIn: side === 'buy' ? 'base' : 'quote', maker };
}

/** What the executions move: the asset paid leaves `free`, the asset received (less its fee) arrives. */
function settle(side: OrderSide, executions: readonly Execution[]): BalanceDelta[] {
  let base = ZERO;
  let quote = ZERO;
  for (const e of executions) {
    const cost = e.price.times(e.amount);
    if (side === 'buy') {
      quote = quote.minus(cost);
      base = base.plus(e.amount.minus(e.fee));
    } else {
      base = base.minus(e.amount);
      quote = quote.plus(cost.minus(e.fee));
    }
  }
  return [
    { asset: 'base', free: base, locked: ZERO },
    { asset: 'quote', free: quote, locked: ZERO },
  ];
}

/** The lock a resting remainder holds: the quote at its price for a buy, the base for a sell. */
export function lockOf(side: OrderSide, resting: Dec, price: Dec): BalanceDelta {
  return side === 'buy'
    ? { asset: 'quote', free: resting.times(price).neg(), locked: resting.times(price) }
    : { asset: 'base', free: resting.neg(), locked: resting };
}

/**
 * Places an order against the book. Market: takes the book until the amount is filled; what the
 * book's depth cannot fill expires. Limit: takes the levels at or better than its price; GTC rests
 * the remainder, IOC expires it, FOK fills all at once or nothing. Refused when the free balance
 * cannot pay: a market buy its cost, a limit buy amount × price, a sell its amount.
 */
export function placeOrder(order: PaperOrder, book: Book, fees: FeeRates, free: { base: Dec; quote: Dec }): Placement {
  const { side, amount } = order;
  if (!amount.gt(0)) return { kind: 'refused', reason: 'The amount must be positive.' };
  if (order.type === 'limit' && !order.price?.gt(0))
    return { kind: 'refused', reason: 'A limit order needs a positive price.' };
  const limit = order.type === 'limit' ? order.price : null;
  const walked = walkBook(side === 'buy' ? book.asks : book.bids, side, amount, limit);

  const cost = walked.takes.reduce((sum, t) => sum.plus(t.price.times(t.amount)), ZERO);
  const needed =
    side === 'sell'
      ? { asset: free.base, want: amount }
      : { asset: free.quote, want: limit ? amount.times(limit) : cost };
  if (needed.want.gt(needed.asset)) return { kind: 'refused', reason: INSUFFICIENT_BALANCE };

  const take = (takes: typeof walked.takes) => takes.map((t) => execution(side, t.price, t.amount, fees.taker, false));
  if (order.type === 'market') {
    const executions = take(walked.takes);
    const complete = walked.left.isZero();
    return {
      kind: 'placed',
      status: complete ? 'filled' : 'expired',
      executions,
      resting: ZERO,
      deltas: settle(side, executions),
      ...(complete ? {} : { reason: 'The book held less than the amount; the rest expired.' }),
    };
  }
  if (order.timeInForce === 'FOK' && !walked.left.isZero()) {
    return {
      kind: 'placed',
      status: 'expired',
      executions: [],
      resting: ZERO,
      deltas: [],
      reason: 'Fill or kill: the book could not fill the whole amount at the price.',
    };
  }
  const executions = take(walked.takes);
  const deltas = settle(side, executions);
  if (walked.left.isZero()) return { kind: 'placed', status: 'filled', executions, resting: ZERO, deltas };
  if (order.timeInForce === 'IOC') {
    return {
      kind: 'placed',
      status: 'expired',
      executions,
      resting: ZERO,
      deltas,
      reason: 'Immediate or cancel: the rest of the amount expired.',
    };
  }
  return {
    kind: 'placed',
    status: executions.length > 0 ? 'partially_filled' : 'open',
    executions,
    resting: walked.left,
    deltas: [...deltas, lockOf(side, walked.left, limit!)],
  };
}

/**
 * Whether prices seen since the last look went through a resting order's price: strictly below it
 * for a buy, strictly above for a sell (a touch does not fill: the queue ahead of it is unknown).
 */
export function priceWentThrough(side: OrderSide, price: Dec, seen: { low: Dec; high: Dec }): boolean {
  return side === 'buy' ? seen.low.lt(price) : seen.high.gt(price);
}

/** A resting remainder filling entirely at its own price with the maker fee; the lock becomes the payment. */
export function fillResting(
  side: OrderSide,
  price: Dec,
  resting: Dec,
  makerRate: Dec,
): { execution: Execution; deltas: BalanceDelta[] } {
  const e = execution(side, price, resting, makerRate, true);
  const cost = price.times(resting);
  const deltas: BalanceDelta[] =
    side === 'buy'
      ? [
          { asset: 'quote', free: ZERO, locked: cost.neg() },
          { asset: 'base', free: resting.minus(e.fee), locked: ZERO },
        ]
      : [
          { asset: 'base', free: ZERO, locked: resting.neg() },
          { asset: 'quote', free: cost.minus(e.fee), locked: ZERO },
        ];
  return { execution: e, deltas };
}

/** Canceling a resting remainder gives its lock back. */
export function releaseLock(side: OrderSide, resting: Dec, price: Dec): BalanceDelta {
  const lock = lockOf(side, resting, price);
  return { asset: lock.asset, free: lock.free.neg(), locked: lock.locked.neg() };
}
