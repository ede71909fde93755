// The paper account's closed sets and its valuation, pure (docs/decisions/215).
import type { OrderSide, OrderType, TimeInForce, VenueOrderStatus } from '../../platform/order-venue.ts';
import { D, type Dec } from './matching.domain.ts';

export const ORDER_SIDES = ['buy', 'sell'] as const satisfies readonly OrderSide[];
export const ORDER_TYPES = ['market', 'limit'] as const satisfies readonly OrderType[];
export const TIMES_IN_FORCE = ['GTC', 'IOC', 'FOK'] as const satisfies readonly TimeInForce[];
export const PAPER_STATUSES = [
  'open',
  'partially_filled',
  'filled',
  'canceled',
  'expired',
  'rejected',
] as const satisfies readonly VenueOrderStatus[];

/** Statuses in which an order still rests on the paper book, holding a lock. */
export const RESTING_STATUSES = ['open', 'partially_filled'] as const satisfies readonly VenueOrderStatus[];

/** The asset the account's equity is counted in. */
export const PAPER_QUOTE = 'USDT';

/** The venues whose books the engine walks: the one the market module reads. */
export const PAPER_VENUES = ['binance'] as const;

/** An asset code as venues write them. */
export const ASSET_PATTERN = /^[A-Z0-9]{1,20}$/;

export interface HeldBalance {
  asset: string;
  free: string;
  locked: string;
}

/**
 * The balances valued in `quote` at last prices: an asset's own pair with the quote, else the inverse
 * pair; an asset with neither is left out of the sum and named in `unpriced`.
 */
export function equityOf(
  balances: readonly HeldBalance[],
  quote: string,
  pairs: { price(base: string, quote: string): string | undefined },
): { equity: Dec; unpriced: string[] } {
  let equity = new D(0);
  const unpriced: string[] = [];
  for (const b of balances) {
    const total = new D(b.free).plus(b.locked);
    if (total.isZero()) continue;
    if (b.asset === quote) {
      equity = equity.plus(total);
      continue;
    }
    const direct = pairs.price(b.asset, quote);
    const inverse = direct === undefined ? pairs.price(quote, b.asset) : undefined;
    if (direct !== undefined) equity = equity.plus(total.times(direct));
    else if (inverse !== undefined && !new D(inverse).isZero()) equity = equity.plus(total.div(inverse));
    else unpriced.push(b.asset);
  }
  return { equity, unpriced };
}

/** A decimal as the wire carries it: plain notation, no trailing zeros. */
export function decimalText(value: Dec | string): string {
  return new D(value).toFixed();
}

/** What a balance column, numeric(38,18), holds: below 10^20 (decision 832). */
export const BALANCE_WHOLE_DIGITS = 20;
const BALANCE_BOUND = new D(10).pow(BALANCE_WHOLE_DIGITS);

/**
 * The first asset whose balance the changes would carry to 10^20 or past: its free and locked together (a
 * lock given back moves one into the other), with what the order's resting remainder receives should it
 * fill (`eventual`); undefined when every one stays storable.
 */
export function overflowingAsset(
  held: readonly { asset: string; free: string; locked: string }[],
  changes: readonly { asset: string; free: string; locked: string }[],
): string | undefined {
  const totals = new Map(held.map((b) => [b.asset, new D(b.free).plus(b.locked)]));
  for (const c of changes) totals.set(c.asset, (totals.get(c.asset) ?? new D(0)).plus(c.free).plus(c.locked));
  for (const [asset, total] of totals) if (total.gte(BALANCE_BOUND)) return asset;
  return undefined;
}
