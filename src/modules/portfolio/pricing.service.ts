// Prices in the report quote: now (the market's last prices) and at an instant (the hourly close).
// The market is asked only when a price other than the quote's is first needed, so a user holding
// and trading nothing else is answered without the venue (docs/decisions/152).
import { invalidField, unavailable } from '../../platform/http/errors.ts';
import { dec, type Dec } from './ledger.domain.ts';
import type { PortfolioQuotes } from './portfolio.deps.ts';
import { priceLegs, priceThrough, type PriceLeg } from './price-legs.domain.ts';

const HOUR_MS = 3_600_000;

/** One request's prices in one quote; memoized, so ask freely. */
export interface Pricer {
  /** The report quote, upper case. */
  quote: string;
  /** How one unit of `asset` is priced in the quote: no leg for the quote itself; null when no pair joins them. */
  legs(asset: string): Promise<PriceLeg[] | null>;
  /** The last price of one unit of `asset` (the quote is 1); null when no pair prices it. */
  now(asset: string): Promise<Dec | null>;
  /** The close of the hour containing `at`, the last price when the venue has none. */
  at(asset: string, at: Date): Promise<Dec | null>;
}

export function createPricingService(deps: { quotes: PortfolioQuotes }) {
  const { quotes } = deps;

  /** The listed pairs and last prices, once `quote` is known to be a currency of one of them. */
  async function listing(quote: string, quoteInput: string) {
    const { byPair, prices } = await quotes.last();
    const symbolOf = (pair: string) => byPair.get(pair)?.symbol;
    let listed = false;
    for (const pair of byPair.keys()) {
      const [base, q] = pair.split('/');
      if (base === quote || q === quote) {
        listed = true;
        break;
      }
    }
    if (!listed) throw invalidField(['query', 'quote'], `the venue prices no pair in ${quote}`, quoteInput);
    const lastOf = (symbol: string) => {
      const p = prices.get(symbol);
      return p === undefined ? null : dec(p);
    };
    const legsMemo = new Map<string, PriceLeg[] | null>();
    const legs = (asset: string) => {
      if (!legsMemo.has(asset)) legsMemo.set(asset, priceLegs(asset, quote, symbolOf));
      return legsMemo.get(asset)!;
    };
    return { legs, lastOf };
  }

  return {
    /** Prices in `quoteInput` (any case) for one request. */
    pricer(quoteInput: string): Pricer {
      const quote = quoteInput.toUpperCase();
      let loaded: ReturnType<typeof listing> | undefined;
      const list = () => (loaded ??= listing(quote, quoteInput));
      const closes = new Map<string, Promise<Dec | null>>();
      const closeOf = (symbol: string, at: Date, lastOf: (symbol: string) => Dec | null) => {
        const hour = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
        const key = `${symbol}:${hour}`;
        let close = closes.get(key);
        if (!close) {
          // A failure is not "no such candle": today's price would value the past and be kept in the
          // ledger (decision 156) long after the venue is back, so the answer is 503 instead (decision 892).
          close = quotes.closeAt(symbol, new Date(hour)).then(
            (c) => (c === null ? lastOf(symbol) : dec(c)),
            (error: unknown) => {
              throw unavailable(`The venue did not give the hourly close of ${symbol}; try again shortly`, {
                cause: error,
                headers: { 'retry-after': '5' },
              });
            },
          );
          closes.set(key, close);
        }
        return close;
      };
      return {
        quote,
        async legs(asset) {
          return asset === quote ? [] : (await list()).legs(asset);
        },
        async now(asset) {
          if (asset === quote) return dec(1);
          const { legs, lastOf } = await list();
          const path = legs(asset);
          return path ? priceThrough(path, lastOf) : null;
        },
        async at(asset, at) {
          if (asset === quote) return dec(1);
          const { legs, lastOf } = await list();
          const path = legs(asset);
          if (!path) return null;
          const resolved = new Map<string, Dec | null>();
          for (const leg of path) resolved.set(leg.symbol, await closeOf(leg.symbol, at, lastOf));
          return priceThrough(path, (s) => resolved.get(s) ?? null);
        },
      };
    },
  };
}

export type PricingService = ReturnType<typeof createPricingService>;
