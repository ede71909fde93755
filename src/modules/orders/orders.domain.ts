// The order state machine (docs/decisions/210, 212), pure: which statuses exist, which moves are
// allowed, and what a venue's view of an order makes of ours. Both modes (paper and live) go through it.
import { Decimal } from 'decimal.js';
import type { VenueFill, VenueOrderState } from '../../platform/order-venue.ts';

/** A decimal in fixed-point notation: digits without leading zeros, an optional sign and fraction. */
const FIXED_POINT = /^-?(?:0|[1-9]\d*)(?:\.\d*)?$/;

/**
 * An amount in plain notation without trailing zeros, as `new Decimal(value).toFixed()` writes it: the
 * wire's form of a numeric column read back at its scale (`0.001000000000000000` → `0.001`). A value in
 * fixed-point notation (every numeric PostgreSQL writes out) is trimmed as text; anything else goes to
 * decimal.js (decision 550).
 */
export function plainAmount(value: string): string {
  if (!FIXED_POINT.test(value)) return new Decimal(value).toFixed();
  const dot = value.indexOf('.');
  let end = value.length;
  if (dot >= 0) {
    while (value.charCodeAt(end - 1) === 48 /* 0 */) end -= 1;
    if (end === dot + 1) end = dot;
  }
  const trimmed = end === value.length ? value : value.slice(0, end);
  return trimmed === '-0' ? '0' : trimmed;
}

/**
 * An amount with `scale` digits after the point, as `new Decimal(value).toFixed(scale)` writes it and
 * PostgreSQL stores a numeric of that scale: a non-negative value in fixed-point notation with no more
 * digits than that is padded as text; anything else (rounding, a sign) goes to decimal.js (decision 550).
 */
export function amountAtScale(value: string, scale: number): string {
  if (value.charCodeAt(0) !== 45 /* - */ && FIXED_POINT.test(value)) {
    const dot = value.indexOf('.');
    const digits = dot < 0 ? 0 : value.length - dot - 1;
    if (digits <= scale) {
      if (scale === 0) return dot < 0 ? value : value.slice(0, dot);
      return (dot < 0 ? `${value}.` : value) + '0'.repeat(scale - digits);
    }
  }
  return new Decimal(value).toFixed(scale);
}

export const ORDER_STATUSES = [
  'pending',
  'unknown',
  'open',
  'partially_filled',
  'filled',
  'canceled',
  'expired',
  'rejected',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ORDER_SIDES = ['buy', 'sell'] as const;
export const ORDER_TYPES = ['market', 'limit'] as const;
export const TIME_IN_FORCE = ['GTC', 'IOC', 'FOK'] as const;
export const ORDER_MODES = ['paper', 'live'] as const;
export const ORDER_SOURCES = ['api', 'signal', 'strategy'] as const;
export type OrderSource = (typeof ORDER_SOURCES)[number];

export const FINAL_STATUSES: readonly OrderStatus[] = ['filled', 'canceled', 'expired', 'rejected'];

export const isFinal = (status: OrderStatus): boolean => FINAL_STATUSES.includes(status);

/**
 * The moves the machine allows. `pending` is stored and not yet sent; the sender claims it as
 * `unknown` before the request leaves, so that a crash mid-send leaves an order to look up, never one
 * to send again. A cancel of an order still `pending` ends it `canceled`: it never left (decision 260).
 * Final statuses never move.
 */
const ALLOWED: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  pending: ['unknown', 'canceled', 'rejected'],
  unknown: ['open', 'partially_filled', 'filled', 'canceled', 'expired', 'rejected'],
  open: ['partially_filled', 'filled', 'canceled', 'expired'],
  partially_filled: ['partially_filled', 'filled', 'canceled', 'expired'],
  filled: [],
  canceled: [],
  expired: [],
  rejected: [],
};

export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  return ALLOWED[from].includes(to);
}

/** What an order looks like after the venue's view of it, or null when that changes nothing. */
export interface OrderProgress {
  status: OrderStatus;
  filled: string;
  averagePrice: string | null;
  venueOrderId: string;
  reason: string | null;
}

export interface StoredOrderState {
  status: OrderStatus;
  amount: string;
  filled: string;
  venueOrderId: string | null;
}

/**
 * Our order brought to the venue's state. The venue may report `open` with some filled (Binance says
 * PARTIALLY_FILLED, others do not): filled > 0 and not final is `partially_filled`. A report that would
 * move the order backwards (a stale read after a newer one) changes nothing; fills only grow.
 */
export function progressFrom(stored: StoredOrderState, venue: VenueOrderState): OrderProgress | null {
  let status: OrderStatus = venue.status;
  const filled = Decimal.max(new Decimal(stored.filled), new Decimal(venue.filled || '0'));
  if (status === 'open' && filled.gt(0)) status = 'partially_filled';
  if (status === 'partially_filled' && filled.gte(stored.amount)) status = 'filled';
  const sameStatus = status === stored.status;
  if (!sameStatus && !canMove(stored.status, status)) return null;
  if (sameStatus && filled.eq(stored.filled) && stored.venueOrderId === venue.venueOrderId) return null;
  return {
    status,
    filled: filled.toFixed(),
    averagePrice: venue.averagePrice,
    venueOrderId: venue.venueOrderId,
    reason: venue.reason ?? null,
  };
}

/** The fills not yet stored, by venue trade id. */
export function newFills(stored: readonly string[], reported: readonly VenueFill[]): VenueFill[] {
  const seen = new Set(stored);
  const fresh: VenueFill[] = [];
  for (const fill of reported) {
    if (seen.has(fill.tradeId)) continue;
    seen.add(fill.tradeId);
    fresh.push(fill);
  }
  return fresh;
}

/** Sums of an order's fills: cost (quote), fee, and the average price, exact. */
export function fillTotals(fills: readonly { price: string; amount: string; fee: string }[]): {
  filled: string;
  cost: string;
  fee: string;
  averagePrice: string | null;
} {
  let filled = new Decimal(0);
  let cost = new Decimal(0);
  let fee = new Decimal(0);
  for (const f of fills) {
    filled = filled.plus(f.amount);
    cost = cost.plus(new Decimal(f.price).times(f.amount));
    fee = fee.plus(f.fee);
  }
  return {
    filled: filled.toFixed(),
    cost: cost.toFixed(),
    fee: fee.toFixed(),
    averagePrice: filled.gt(0) ? cost.div(filled).toFixed() : null,
  };
}

/** A market's limits as the venue states them (ccxt's `limits` and `precision.amount` as the step). */
export interface MarketRules {
  minAmount: number | null;
  minCost: number | null;
  amountStep: number | null;
  priceStep: number | null;
}

export type RuleViolation = { field: 'amount' | 'price'; msg: string; ctx?: Record<string, unknown> };

/** The first of the venue's limits the order breaks, before anything is sent. */
export function checkMarketRules(
  rules: MarketRules,
  order: { amount: string; price: string | null; referencePrice: string | null },
): RuleViolation | null {
  const amount = new Decimal(order.amount);
  if (rules.minAmount !== null && amount.lt(rules.minAmount))
    return { field: 'amount', msg: `amount is below the market's minimum of ${rules.minAmount}` };
  if (rules.amountStep !== null && rules.amountStep > 0 && !amount.mod(rules.amountStep).eq(0))
    return { field: 'amount', msg: `amount must be a multiple of the market's step of ${rules.amountStep}` };
  if (order.price !== null && rules.priceStep !== null && rules.priceStep > 0) {
    if (!new Decimal(order.price).mod(rules.priceStep).eq(0))
      return { field: 'price', msg: `price must be a multiple of the market's tick of ${rules.priceStep}` };
  }
  const price = order.price ?? order.referencePrice;
  if (rules.minCost !== null && price !== null && amount.times(price).lt(rules.minCost))
    return {
      field: 'amount',
      msg: `amount × price is below the market's minimum notional of ${rules.minCost}`,
    };
  return null;
}

/**
 * The widest decimal an order keeps: its columns (and the paper engine's, the strategies' fills) are
 * `numeric(38,18)`, 20 whole digits and 18 places. A value past either, or an order whose notional (amount
 * × price) is past the whole digits, would fail the insert (or a fill's, a balance's write) with a 500
 * (decision 770).
 */
export const ORDER_WHOLE_DIGITS = 20;
export const ORDER_PLACES = 18;
const LARGEST_NOTIONAL = new Decimal(10).pow(ORDER_WHOLE_DIGITS);

/** What keeps a decimal of the request from being stored, as Pydantic words a `Decimal(max_digits=38, decimal_places=18)`. */
export function storableIssue(value: Decimal): { type: string; msg: string; ctx: Record<string, number> } | null {
  const [whole = '', places = ''] = value.abs().toFixed().split('.');
  if (whole.length > ORDER_WHOLE_DIGITS)
    return {
      type: 'decimal_whole_digits',
      msg: `Decimal input should have no more than ${ORDER_WHOLE_DIGITS} digits before the decimal point`,
      ctx: { whole_digits: ORDER_WHOLE_DIGITS },
    };
  if (places.length > ORDER_PLACES)
    return {
      type: 'decimal_max_places',
      msg: `Decimal input should have no more than ${ORDER_PLACES} decimal places`,
      ctx: { decimal_places: ORDER_PLACES },
    };
  return null;
}

/** Whether an order's notional (amount × its price, or the last price) is past what a cost or a balance can hold. */
export function notionalTooLarge(amount: string, price: string | null): boolean {
  return price !== null && new Decimal(amount).times(price).gte(LARGEST_NOTIONAL);
}

/** One fill of the day, with what it belongs to, for the realized loss. */
export interface DayFill {
  market: string;
  side: 'buy' | 'sell';
  price: string;
  amount: string;
  /** The fee in quote units (0 when charged in another currency). */
  quoteFee: string;
}

/**
 * The realized loss of the day (positive = a loss), in quote units: each sell matched FIFO against the
 * day's earlier buys of the same market (a sell with no buy of the day before it realizes nothing:
 * its cost basis is not the day's), minus fees in quote (docs/decisions/214).
 */
export function realizedLoss(fills: readonly DayFill[]): string {
  const lots = new Map<string, { price: Decimal; amount: Decimal }[]>();
  let pnl = new Decimal(0);
  for (const fill of fills) {
    const queue = lots.get(fill.market) ?? [];
    lots.set(fill.market, queue);
    pnl = pnl.minus(fill.quoteFee);
    if (fill.side === 'buy') {
      queue.push({ price: new Decimal(fill.price), amount: new Decimal(fill.amount) });
      continue;
    }
    let left = new Decimal(fill.amount);
    while (left.gt(0) && queue.length > 0) {
      const lot = queue[0]!;
      const take = Decimal.min(left, lot.amount);
      pnl = pnl.plus(new Decimal(fill.price).minus(lot.price).times(take));
      lot.amount = lot.amount.minus(take);
      left = left.minus(take);
      if (lot.amount.eq(0)) queue.shift();
    }
  }
  return pnl.negated().toFixed();
}
