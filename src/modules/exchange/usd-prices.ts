// Recently seen USD prices of currencies, remembered from the tickers this module fetches anyway
// (ticker, quotes, route), so an account can be valued without calling a venue.
import type { Cache } from '../../platform/cache/cache.ts';
import { USD_STABLECOINS } from './venues.domain.ts';

const TTL_MS = 60 * 60 * 1000;
const key = (currency: string) => `exchange:usd-price:${currency}`;
const isUsd = (currency: string) => (USD_STABLECOINS as readonly string[]).includes(currency);

export function createUsdPrices(cache: Cache) {
  return {
    /** Remembers the last price of every pair quoted in a USD stablecoin; never fails the caller. */
    async remember(pairs: readonly { base: string; quote: string; last: number | null }[]): Promise<void> {
      const writes = pairs
        .filter((p) => isUsd(p.quote) && !isUsd(p.base) && p.last !== null && p.last > 0)
        .map((p) => cache.set(key(p.base), p.last, TTL_MS).catch(() => undefined));
      await Promise.all(writes);
    },

    /** USD price per currency: stablecoins at 1, others when seen within the hour; absent otherwise. */
    async lookup(currencies: readonly string[]): Promise<Map<string, number>> {
      const prices = new Map<string, number>();
      await Promise.all(
        [...new Set(currencies)].map(async (currency) => {
          if (isUsd(currency)) return prices.set(currency, 1);
          const price = await cache.get<number>(key(currency)).catch(() => undefined);
          if (typeof price === 'number') prices.set(currency, price);
        }),
      );
      return prices;
    },
  };
}

export type UsdPrices = ReturnType<typeof createUsdPrices>;
