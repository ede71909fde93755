// How much base an alert's size comes to (docs/decisions/221): an amount as given; a quote amount at
// the reference price (the limit price, else the last price); a percent of what is free, the quote for
// a buy (at the reference price), the base for a sell. Rounded down to the market's step, never up, so
// that the order never spends more than was asked. Pure.
import { Decimal } from 'decimal.js';
import type { AlertSize } from './alerts.domain.ts';

export interface SizingContext {
  side: 'buy' | 'sell';
  /** The limit price, else the last price; null when the venue has none. */
  referencePrice: string | null;
  /** The market's amount step; null: none known (8 decimals then). */
  amountStep: number | null;
  /** What is free now, for a percent: the quote's for a buy, the base's for a sell. */
  free?: string | null;
}

const FALLBACK_DECIMALS = 8;

function roundDown(amount: Decimal, step: number | null): Decimal {
  if (step !== null && step > 0) return amount.div(step).floor().times(step);
  return amount.toDecimalPlaces(FALLBACK_DECIMALS, Decimal.ROUND_DOWN);
}

/** The base amount, or why there is none (the reason is the alert's answer: a 422 on its size field). */
export function baseAmountOf(size: AlertSize, context: SizingContext): { amount: string } | { problem: string } {
  if ('amount' in size) return { amount: new Decimal(size.amount).toFixed() };
  const price = context.referencePrice === null ? null : new Decimal(context.referencePrice);
  let amount: Decimal;
  if ('amountQuote' in size) {
    if (price === null || price.lte(0)) return { problem: 'no price is known to turn amount_quote into an amount' };
    amount = new Decimal(size.amountQuote).div(price);
  } else {
    if (context.free === null || context.free === undefined)
      return { problem: `nothing is known to be free for a percent ${context.side === 'buy' ? 'buy' : 'sell'}` };
    const share = new Decimal(context.free).times(size.percent).div(100);
    if (context.side === 'sell') amount = share;
    else {
      if (price === null || price.lte(0)) return { problem: 'no price is known to turn a percent into an amount' };
      amount = share.div(price);
    }
  }
  const rounded = roundDown(amount, context.amountStep);
  if (rounded.lte(0)) return { problem: "the size comes to less than the market's smallest amount" };
  return { amount: rounded.toFixed() };
}
