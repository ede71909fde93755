// Pure rules of the risk limits (docs/decisions/218): which limits exist, how a value is written, what
// is in force once the platform's caps are applied, and whether an order candidate keeps within them.
// Decimals are strings (decimal.js for arithmetic); null is "no limit".
import { Decimal } from 'decimal.js';
import type { ValidationIssue } from '../../platform/http/errors.ts';
import type { OrderSide, OrderType } from '../../platform/order-venue.ts';

/** The limits as the wire names them; a refusal names one of these. */
export const LIMIT_FIELDS = [
  'max_order_notional',
  'max_open_orders',
  'max_orders_per_minute',
  'price_band_percent',
  'daily_loss_limit',
] as const;
export type LimitField = (typeof LIMIT_FIELDS)[number];

/** One set of limits: a user's own, the platform's caps or defaults, or those in force. */
export interface Limits {
  /** Quote units of the order's symbol. */
  maxOrderNotional: string | null;
  maxOpenOrders: number | null;
  maxOrdersPerMinute: number | null;
  /** How far a limit price may be from the last price, in percent of it. */
  priceBandPercent: string | null;
  /** Realized loss of the UTC day, in quote units, past which the user is halted. */
  dailyLossLimit: string | null;
}
export type LimitKey = keyof Limits;

export const FIELD_OF: Record<LimitKey, LimitField> = {
  maxOrderNotional: 'max_order_notional',
  maxOpenOrders: 'max_open_orders',
  maxOrdersPerMinute: 'max_orders_per_minute',
  priceBandPercent: 'price_band_percent',
  dailyLossLimit: 'daily_loss_limit',
};
export const LIMIT_KEYS = Object.keys(FIELD_OF) as LimitKey[];
const DECIMAL_KEYS = ['maxOrderNotional', 'priceBandPercent', 'dailyLossLimit'] as const;
type DecimalKey = (typeof DECIMAL_KEYS)[number];
const COUNT_KEYS = ['maxOpenOrders', 'maxOrdersPerMinute'] as const;

export const NO_LIMITS: Limits = {
  maxOrderNotional: null,
  maxOpenOrders: null,
  maxOrdersPerMinute: null,
  priceBandPercent: null,
  dailyLossLimit: null,
};

/** The widest decimal a limit holds: 20 whole digits, 18 places (what `numeric(38,18)` would keep). */
export const MAX_WHOLE_DIGITS = 20;
export const MAX_PLACES = 18;
export const MAX_PERCENT = 100;
const DECIMAL_TEXT = /^-?[0-9]+(\.[0-9]+)?$/;

/** A decimal in plain notation without trailing zeros: `"1.50"` → `"1.5"`, `"010"` → `"10"`. */
export function normalDecimal(text: string): string {
  return new Decimal(text).toFixed();
}

/**
 * What is wrong with a decimal limit's text, as Pydantic reports a `Decimal` field with `gt=0` (and
 * `le=100` for the percent), or undefined when it is valid.
 */
export function decimalIssue(key: DecimalKey, input: unknown, loc: (string | number)[]): ValidationIssue | undefined {
  const text = typeof input === 'string' ? input : '';
  if (!DECIMAL_TEXT.test(text)) return { type: 'decimal_parsing', loc, msg: 'Input should be a valid decimal', input };
  const value = new Decimal(text);
  if (value.lte(0))
    return { type: 'greater_than', loc, msg: 'Input should be greater than 0', input, ctx: { gt: '0' } };
  const [whole = '', places = ''] = value.toFixed().split('.');
  if (whole.length > MAX_WHOLE_DIGITS)
    return {
      type: 'decimal_whole_digits',
      loc,
      msg: `Decimal input should have no more than ${MAX_WHOLE_DIGITS} digits before the decimal point`,
      input,
      ctx: { whole_digits: MAX_WHOLE_DIGITS },
    };
  if (places.length > MAX_PLACES)
    return {
      type: 'decimal_max_places',
      loc,
      msg: `Decimal input should have no more than ${MAX_PLACES} decimal places`,
      input,
      ctx: { decimal_places: MAX_PLACES },
    };
  if (key === 'priceBandPercent' && value.gt(MAX_PERCENT))
    return {
      type: 'less_than_equal',
      loc,
      msg: `Input should be less than or equal to ${MAX_PERCENT}`,
      input,
      ctx: { le: String(MAX_PERCENT) },
    };
  return undefined;
}

/** A change of a user's limits: the fields given, each a value or null (no limit of the user's own). */
export type LimitsPatch = Partial<Limits>;

/**
 * Every problem of a change at once: decimals that do not parse or are out of range, and values
 * above the platform's cap (a user's limit may be lower than the cap, never higher). Decimal fields
 * arrive as strings; the counts were bounded by the schema. `loc` of each issue is `body.<field>`.
 */
export function patchIssues(patch: LimitsPatch, caps: Limits): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const key of LIMIT_KEYS) {
    const value = patch[key];
    if (value === undefined || value === null) continue;
    const loc = ['body', FIELD_OF[key]];
    if ((DECIMAL_KEYS as readonly string[]).includes(key)) {
      const issue = decimalIssue(key as DecimalKey, value, loc);
      if (issue) {
        issues.push(issue);
        continue;
      }
    }
    const cap = caps[key];
    if (cap !== null && new Decimal(value).gt(cap)) {
      issues.push({
        type: 'less_than_equal',
        loc,
        msg: `Input should be less than or equal to ${cap} (the platform's cap)`,
        input: value,
        ctx: { le: (COUNT_KEYS as readonly string[]).includes(key) ? cap : String(cap) },
      });
    }
  }
  return issues;
}

/** The smaller of two limits, null being no limit. */
function tighter<T extends string | number>(a: T | null, b: T | null): T | null {
  if (a === null) return b;
  if (b === null) return a;
  return new Decimal(a).lte(b) ? a : b;
}

/** The limits in force: each of the user's own, or the cap where the cap is tighter (or the user set none). */
export function effectiveLimits(own: Limits, caps: Limits): Limits {
  return {
    maxOrderNotional: tighter(own.maxOrderNotional, caps.maxOrderNotional),
    maxOpenOrders: tighter(own.maxOpenOrders, caps.maxOpenOrders),
    maxOrdersPerMinute: tighter(own.maxOrdersPerMinute, caps.maxOrdersPerMinute),
    priceBandPercent: tighter(own.priceBandPercent, caps.priceBandPercent),
    dailyLossLimit: tighter(own.dailyLossLimit, caps.dailyLossLimit),
  };
}

/** An order about to be sent, as the orders module describes it to the check. Decimals as strings. */
export interface OrderCandidate {
  exchange: string;
  symbol: string;
  side: OrderSide;
  type: OrderType;
  amount: string;
  /** The limit price; null for a market order. */
  price: string | null;
  /** The symbol's last traded price; null when none is known. */
  lastPrice: string | null;
  /**
   * amount × (price, or the last price for a market order), in quote units; null when no price weighs it (a
   * market order while no last price is known): refused under a notional limit, never taken as 0 (decision 772).
   */
  notional: string | null;
}

/** What the orders module counted for the user just before asking: orders open now, orders placed in the last 60 s. */
export interface OrderCounts {
  openOrders: number;
  ordersLastMinute: number;
}

export type CheckResult = { ok: true } | { ok: false; limit: LimitField; detail: string };

const refused = (limit: LimitField, detail: string): CheckResult => ({ ok: false, limit, detail });

/**
 * Whether an order keeps within the limits in force, or the first limit it breaks (notional, price
 * band, open orders, orders per minute). The counts are of orders before this one.
 */
export function checkOrder(limits: Limits, candidate: OrderCandidate, counts: OrderCounts): CheckResult {
  const { maxOrderNotional, priceBandPercent, maxOpenOrders, maxOrdersPerMinute } = limits;
  if (maxOrderNotional !== null && candidate.notional === null) {
    return refused(
      'max_order_notional',
      "No last price is known to weigh the market order's notional against max_order_notional",
    );
  }
  if (maxOrderNotional !== null && new Decimal(candidate.notional!).gt(maxOrderNotional)) {
    return refused(
      'max_order_notional',
      `The order's notional ${normalDecimal(candidate.notional!)} is above max_order_notional ${maxOrderNotional}`,
    );
  }
  if (priceBandPercent !== null && candidate.price !== null) {
    const last = candidate.lastPrice === null ? null : new Decimal(candidate.lastPrice);
    if (last === null || last.lte(0)) {
      return refused(
        'price_band_percent',
        'No last price is known to check the limit price against price_band_percent',
      );
    }
    const distance = new Decimal(candidate.price).minus(last).abs().div(last).times(100);
    if (distance.gt(priceBandPercent)) {
      return refused(
        'price_band_percent',
        `The limit price ${normalDecimal(candidate.price)} is ${distance.toDecimalPlaces(2).toFixed()}% from the ` +
          `last price ${last.toFixed()}, beyond price_band_percent ${priceBandPercent}`,
      );
    }
  }
  if (maxOpenOrders !== null && counts.openOrders >= maxOpenOrders) {
    return refused('max_open_orders', `${counts.openOrders} orders are open; max_open_orders is ${maxOpenOrders}`);
  }
  if (maxOrdersPerMinute !== null && counts.ordersLastMinute >= maxOrdersPerMinute) {
    return refused(
      'max_orders_per_minute',
      `${counts.ordersLastMinute} orders were placed in the last minute; max_orders_per_minute is ${maxOrdersPerMinute}`,
    );
  }
  return { ok: true };
}

/**
 * The daily loss limits as a fill's own statement read them (decision 461): the user's own (undefined while
 * the user has no limits of their own: the defaults hold) and the platform's cap; null is no limit.
 */
export interface DailyLossLimits {
  own: string | null | undefined;
  cap: string | null;
}

/** The daily loss limit in force from `DailyLossLimits`, as `effectiveLimits` makes it from the gate's read. */
export function dailyLossLimitOf(read: DailyLossLimits, defaults: Pick<Limits, 'dailyLossLimit'>): string | null {
  return tighter(read.own === undefined ? defaults.dailyLossLimit : read.own, read.cap);
}

/** Whether the realized loss of the day is past the daily loss limit (a loss is a positive amount). */
export function pastDailyLoss(limits: Pick<Limits, 'dailyLossLimit'>, dailyLoss: string): boolean {
  return limits.dailyLossLimit !== null && new Decimal(dailyLoss).gt(limits.dailyLossLimit);
}

/** The start of the next UTC day: when a halt for the day's loss ends. */
export function nextUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}
