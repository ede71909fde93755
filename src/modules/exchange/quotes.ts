// Quote currencies for a base on one venue, most liquid first. Pure.
import type { VenueMarket, VenueTicker } from './adapters/venue-gateway.ts';

export interface QuoteOption {
  quote: string;
  symbol: string;
  price: number | null;
  base_volume_24h: number | null;
  quote_volume_24h: number | null;
  min_amount: number | null;
  min_cost: number | null;
  active: boolean;
}

/**
 * Liquidity is compared in the base asset: quote volumes are in different currencies (USDT, BTC,
 * EUR) and cannot be compared directly, whereas base volume × one USD price of the base is each
 * pair's 24 h quote volume in USD, so ordering by base volume orders by quote volume in one currency.
 */
export function rankQuotes(markets: readonly VenueMarket[], tickers: readonly VenueTicker[]): QuoteOption[] {
  const bySymbol = new Map(tickers.map((t) => [t.symbol, t]));
  const options = markets.map((m): QuoteOption => {
    const t = bySymbol.get(m.symbol);
    return {
      quote: m.quote,
      symbol: m.symbol,
      price: t?.last ?? null,
      base_volume_24h: t?.baseVolume ?? null,
      quote_volume_24h: t?.quoteVolume ?? null,
      min_amount: m.minAmount,
      min_cost: m.minCost,
      active: m.active,
    };
  });
  return options.sort(
    (a, b) =>
      Number(b.active) - Number(a.active) ||
      (b.base_volume_24h ?? -1) - (a.base_volume_24h ?? -1) ||
      a.quote.localeCompare(b.quote),
  );
}
