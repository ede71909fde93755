// The venue's markets as users meet them, all pure: symbols as users type them (BTCUSDT, BTC/USDT,
// btc-usdt) resolved against a venue's markets and the symbols worth asking about for a set of held
// currencies; the quote currencies of a base, most liquid first; and an order ranked across venues
// by the price actually paid after the taker fee.
import { Decimal } from 'decimal.js';
import type { Static } from 'typebox';
import type { VenueMarket, VenueTicker } from './adapters/venue-gateway.ts';
import type { Quotes, RouteResult } from './venues.schemas.ts';

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
interface Holding {
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
export function symbolsForHoldings(
  markets: readonly VenueMarket[],
  holdings: readonly Holding[],
  cap: number,
): string[] {
  const quotes = new Set(quoteCurrencies(markets));
  const symbols: string[] = [];
  for (const currency of largestFirst(holdings)) {
    for (const m of markets) {
      if (m.base === currency && quotes.has(m.quote) && !symbols.includes(m.symbol)) symbols.push(m.symbol);
    }
  }
  return symbols.slice(0, cap);
}

/** One quote currency a base trades against, as the quotes answer lists it. */
export type QuoteOption = Static<typeof Quotes>['quotes'][number];

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

export interface RouteCandidate {
  exchange: string;
  market: VenueMarket;
  ticker: VenueTicker;
}

/** One venue's offer, as the route answer lists it. */
export type Route = Static<typeof RouteResult>['routes'][number];

/** A venue listing the pair whose minimums the order does not meet, or without a price. */
export type ExcludedRoute = Static<typeof RouteResult>['excluded'][number];

/**
 * Buying `base` with `quote`: the price is the ask (last trade when the venue gives no book), the
 * effective price adds the taker fee. Venues whose minimum order is larger than the requested size
 * (or notional) are excluded with the reason, and venues without any price too.
 */
export function rankRoutes(
  candidates: readonly RouteCandidate[],
  request: { size?: number; quoteSize?: number },
): { routes: Route[]; excluded: ExcludedRoute[] } {
  const excluded: ExcludedRoute[] = [];
  const priced: Omit<Route, 'rank'>[] = [];
  for (const { exchange, market, ticker } of candidates) {
    const price = ticker.ask ?? ticker.last;
    if (price === null || !(price > 0)) {
      excluded.push({ exchange, symbol: market.symbol, reason: 'the venue reported no price' });
      continue;
    }
    if (request.size !== undefined && market.minAmount !== null && market.minAmount > request.size) {
      excluded.push({
        exchange,
        symbol: market.symbol,
        reason: `min_amount ${market.minAmount} exceeds size ${request.size}`,
      });
      continue;
    }
    if (request.quoteSize !== undefined && market.minCost !== null && market.minCost > request.quoteSize) {
      excluded.push({
        exchange,
        symbol: market.symbol,
        reason: `min_cost ${market.minCost} exceeds quote_size ${request.quoteSize}`,
      });
      continue;
    }
    const taker = market.taker ?? 0;
    priced.push({
      exchange,
      symbol: market.symbol,
      price,
      bid: ticker.bid,
      ask: ticker.ask,
      taker_fee: taker,
      effective_price: price * (1 + taker),
      min_amount: market.minAmount,
      min_cost: market.minCost,
    });
  }
  priced.sort((a, b) => a.effective_price - b.effective_price || a.exchange.localeCompare(b.exchange));
  return { routes: priced.map((route, index) => ({ ...route, rank: index + 1 })), excluded };
}
