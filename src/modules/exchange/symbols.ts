// Symbols as users type them (BTCUSDT, BTC/USDT, btc-usdt) resolved against a venue's markets, and
// the symbols worth asking a venue about for a set of held currencies. Pure.
import { Decimal } from 'decimal.js';
import type { VenueMarket } from './adapters/venue-gateway.ts';

/** Finds the market a user means; undefined when the venue does not list it. */
export function resolveSymbol(markets: readonly VenueMarket[], input: string): VenueMarket | undefined {
  const wanted = input.trim().toUpperCase();
  const parts = wanted.split(/[/\-_:]/);
  if (parts.length === 2 && parts[0] && parts[1]) {
    return markets.find((m) => m.base.toUpperCase() === parts[0] && m.quote.toUpperCase() === parts[1]);
  }
  const compact = wanted.replace(/[^A-Z0-9]/g, '');
  return (
    markets.find((m) => m.id.toUpperCase() === compact) ??
    markets.find((m) => `${m.base}${m.quote}`.toUpperCase() === compact)
  );
}

/** The quote currencies a venue lists, in order of how many bases each serves (a rough popularity). */
export function quoteCurrencies(markets: readonly VenueMarket[]): string[] {
  const counts = new Map<string, number>();
  for (const m of markets) counts.set(m.quote, (counts.get(m.quote) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([quote]) => quote);
}

/** A held currency and how much of it (free + locked), as the venue's decimal string. */
export interface Holding {
  currency: string;
  total: string;
}

/**
 * Largest holdings first, alphabetical among equals. "Largest" is by amount held, not by value: a
 * sync has no price at hand without more venue calls (the USD prices this module remembers cover
 * only pairs someone looked at lately), so 1,000 DOGE ranks above 1 BTC.
 */
export function largestFirst(holdings: readonly Holding[]): string[] {
  return holdings
    .map((h) => ({ currency: h.currency, total: new Decimal(h.total) }))
    .sort((a, b) => b.total.comparedTo(a.total) || a.currency.localeCompare(b.currency))
    .map((h) => h.currency);
}

/**
 * Every market pairing a held currency (as base) with a quote the venue lists: BTC → BTC/USDT,
 * BTC/USDC, ... Binance's myTrades needs a symbol, so a full trade sync asks each of these.
 * Capped, the largest holdings' markets first (see `largestFirst`), to bound the request weight of
 * one sync.
 */
export function symbolsForHoldings(markets: readonly VenueMarket[], holdings: readonly Holding[], cap: number): string[] {
  const quotes = new Set(quoteCurrencies(markets));
  const symbols: string[] = [];
  for (const currency of largestFirst(holdings)) {
    for (const m of markets) {
      if (m.base === currency && quotes.has(m.quote) && !symbols.includes(m.symbol)) symbols.push(m.symbol);
    }
  }
  return symbols.slice(0, cap);
}
