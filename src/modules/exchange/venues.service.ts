// Public venue data: which venues exist and what they can do, their markets, tickers and the quote
// currencies a base trades against.
import { AppError, notFound } from '../../platform/http/errors.ts';
import type { VenueDescription, VenueGateway, VenueMarket, VenueTicker } from './adapters/venue-gateway.ts';
import { quoteCurrencies, rankQuotes, resolveSymbol, type QuoteOption } from './markets.domain.ts';
import { venueWithin } from './timeouts.ts';
import type { UsdPrices } from './usd-prices.ts';
import { VENUES, type Venue } from './venues.domain.ts';

/** A venue's description, with its market limits when they could be had within the probe timeout. */
export interface VenueInfo {
  venue: Venue;
  description: VenueDescription;
  limits: { marketsCount: number; quoteCurrencies: string[]; minCostByQuote: Record<string, number> } | null;
  /** Why the limits are missing. */
  marketsError: string | null;
}

/** The quote currencies a base trades against, ranked, and whether the one asked about survives. */
export interface VenueQuotes {
  venue: Venue;
  base: string;
  quotes: QuoteOption[];
  current: { quote: string; surviving: boolean } | null;
}

export function createVenuesService(deps: {
  gateway: Pick<VenueGateway, 'describe' | 'markets' | 'tickers'>;
  prices: Pick<UsdPrices, 'remember'>;
  probeTimeoutMs: number;
}) {
  const { gateway } = deps;

  return {
    async supported(): Promise<VenueDescription[]> {
      return Promise.all(VENUES.map((venue) => gateway.describe(venue)));
    },

    /**
     * The venue's ccxt description (no keys, no request), plus order limits from its markets when
     * they can be had within the probe timeout; without them the static part still answers.
     */
    async info(venue: Venue): Promise<VenueInfo> {
      // Described first: the venue library's load is done before the markets' bound starts (decision 700).
      const description = await gateway.describe(venue);
      let markets: VenueMarket[] | null = null;
      let marketsError: string | null = null;
      try {
        markets = await venueWithin(
          gateway.markets(venue, { timeoutMs: deps.probeTimeoutMs }),
          deps.probeTimeoutMs,
          venue,
        );
      } catch (error) {
        marketsError = error instanceof AppError ? String(error.detail) : `${venue} markets are unavailable`;
      }
      const limits = markets
        ? {
            marketsCount: markets.length,
            quoteCurrencies: quoteCurrencies(markets),
            minCostByQuote: minCostByQuote(markets),
          }
        : null;
      return { venue, description, limits, marketsError };
    },

    /** The venue's markets by symbol. */
    async markets(venue: Venue): Promise<VenueMarket[]> {
      const markets = await gateway.markets(venue);
      return [...markets].sort((a, b) => a.symbol.localeCompare(b.symbol));
    },

    /** `user`: the signed-in reader, charged their share of the venue's minute (decision 740). */
    async ticker(venue: Venue, symbol: string, user?: string): Promise<VenueTicker> {
      const market = resolveSymbol(await gateway.markets(venue), symbol);
      if (!market) throw notFound(`${venue} does not list ${symbol}`);
      const [ticker] = await gateway.tickers(venue, [market.symbol], { user });
      if (!ticker) throw notFound(`${venue} has no ticker for ${market.symbol}`);
      await deps.prices.remember([{ base: market.base, quote: market.quote, last: ticker.last }]);
      return ticker;
    },

    async quotes(venue: Venue, base: string, currentQuote?: string, user?: string): Promise<VenueQuotes> {
      const wantedBase = base.trim().toUpperCase();
      const markets = (await gateway.markets(venue)).filter((m) => m.base.toUpperCase() === wantedBase);
      const tickers = await gateway.tickers(
        venue,
        markets.map((m) => m.symbol),
        { user },
      );
      await deps.prices.remember(tickers.map((t) => ({ ...splitSymbol(t.symbol), last: t.last })));
      const quotes = rankQuotes(markets, tickers);
      const current = currentQuote?.trim().toUpperCase();
      return {
        venue,
        base: wantedBase,
        quotes,
        current: current ? { quote: current, surviving: quotes.some((q) => q.quote === current && q.active) } : null,
      };
    },
  };
}

/** The smallest order notional each quote currency allows across the venue's markets. */
function minCostByQuote(markets: readonly VenueMarket[]): Record<string, number> {
  const result: Record<string, number> = {};
  for (const m of markets) {
    if (m.minCost === null) continue;
    result[m.quote] = Math.min(result[m.quote] ?? Infinity, m.minCost);
  }
  return result;
}

function splitSymbol(symbol: string): { base: string; quote: string } {
  const [base = '', quote = ''] = symbol.split('/');
  return { base, quote: quote.split(':')[0] ?? '' };
}
