// Ranking a base/quote order across venues by the price actually paid after the taker fee. Pure.
import type { VenueMarket, VenueTicker } from './adapters/venue-gateway.ts';

export interface RouteCandidate {
  exchange: string;
  market: VenueMarket;
  ticker: VenueTicker;
}

export interface Route {
  exchange: string;
  symbol: string;
  price: number;
  bid: number | null;
  ask: number | null;
  taker_fee: number;
  effective_price: number;
  min_amount: number | null;
  min_cost: number | null;
  rank: number;
}

export interface ExcludedRoute {
  exchange: string;
  symbol: string;
  reason: string;
}

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
      excluded.push({ exchange, symbol: market.symbol, reason: `min_amount ${market.minAmount} exceeds size ${request.size}` });
      continue;
    }
    if (request.quoteSize !== undefined && market.minCost !== null && market.minCost > request.quoteSize) {
      excluded.push({ exchange, symbol: market.symbol, reason: `min_cost ${market.minCost} exceeds quote_size ${request.quoteSize}` });
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
