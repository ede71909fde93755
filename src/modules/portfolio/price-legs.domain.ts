// How an asset is priced in the report quote from the venue's pairs, pure (docs/decisions/152).
import { D, type Dec } from './ledger.domain.ts';

/** One conversion step: the price of `symbol`, or its inverse. */
export interface PriceLeg {
  symbol: string;
  invert: boolean;
}

/** Currencies a price may go through when no pair joins an asset to the quote directly. */
const BRIDGES = ['USDT', 'BTC'] as const;

/**
 * How one unit of `asset` is priced in `quote` from the venue's pairs (`BASE/QUOTE` → symbol): a
 * direct pair, its inverse, or through one bridge currency. Empty for the quote itself; null when
 * nothing joins them.
 */
export function priceLegs(
  asset: string,
  quote: string,
  symbolOf: (pair: string) => string | undefined,
): PriceLeg[] | null {
  if (asset === quote) return [];
  const direct = (from: string, to: string): PriceLeg | null => {
    const straight = symbolOf(`${from}/${to}`);
    if (straight) return { symbol: straight, invert: false };
    const inverse = symbolOf(`${to}/${from}`);
    return inverse ? { symbol: inverse, invert: true } : null;
  };
  const one = direct(asset, quote);
  if (one) return [one];
  for (const bridge of BRIDGES) {
    if (bridge === asset || bridge === quote) continue;
    const first = direct(asset, bridge);
    const second = first && direct(bridge, quote);
    if (first && second) return [first, second];
  }
  return null;
}

/** The price the legs give from each symbol's price; null when one is missing or zero. */
export function priceThrough(legs: readonly PriceLeg[], priceOf: (symbol: string) => Dec | null): Dec | null {
  let price = new D(1);
  for (const leg of legs) {
    const p = priceOf(leg.symbol);
    if (!p || p.lte(0)) return null;
    price = leg.invert ? price.div(p) : price.times(p);
  }
  return price;
}
