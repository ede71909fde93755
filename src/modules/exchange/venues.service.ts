// Public venue data: which venues exist and what they can do, their markets, tickers and the quote
// currencies a base trades against.
import { AppError, notFound } from '../../platform/http/errors.ts';
import type { VenueGateway, VenueMarket, VenueTicker } from './adapters/venue-gateway.ts';
import { quoteCurrencies, rankQuotes, resolveSymbol } from './markets.domain.ts';
import { venueWithin } from './timeouts.ts';
import type { UsdPrices } from './usd-prices.ts';
import { DEFAULT_VENUE, VENUES, type Venue } from './venues.domain.ts';

function marketView(m: VenueMarket) {
  return {
    symbol: m.symbol,
    id: m.id,
    base: m.base,
    quote: m.quote,
    active: m.active,
    min_amount: m.minAmount,
    max_amount: m.maxAmount,
    min_cost: m.minCost,
    price_precision: m.pricePrecision,
    amount_precision: m.amountPrecision,
    maker_fee: m.maker,
    taker_fee: m.taker,
  };
}

function tickerView(venue: Venue, t: VenueTicker) {
  return {
    exchange: venue,
    symbol: t.symbol,
    last: t.last,
    bid: t.bid,
    ask: t.ask,
    high: t.high,
    low: t.low,
    open: t.open,
    close: t.close,
    change: t.change,
    percentage: t.percentage,
    base_volume: t.baseVolume,
    quote_volume: t.quoteVolume,
    vwap: t.vwap,
    timestamp: t.timestamp === null ? null : new Date(t.timestamp).toISOString(),
  };
}

export function createVenuesService(deps: {
  gateway: Pick<VenueGateway, 'describe' | 'markets' | 'tickers'>;
  prices: Pick<UsdPrices, 'remember'>;
  probeTimeoutMs: number;
}) {
  const { gateway } = deps;

  return {
    async supported() {
      const descriptions = await Promise.all(VENUES.map((venue) => gateway.describe(venue)));
      return {
        exchanges: descriptions.map((d) => ({
          id: d.id,
          name: d.name,
          requires_passphrase: d.requiresPassphrase,
          is_default: d.id === DEFAULT_VENUE,
          capabilities: d.capabilities,
        })),
        default_exchange: DEFAULT_VENUE,
        total: descriptions.length,
      };
    },

    /**
     * The venue's ccxt description (no keys, no request), plus order limits from its markets when
     * they can be had within the probe timeout; without them the static part still answers.
     */
    async info(venue: Venue) {
      const d = await gateway.describe(venue);
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
      return {
        exchange: venue,
        name: d.name,
        countries: d.countries,
        is_default: venue === DEFAULT_VENUE,
        requires_passphrase: d.requiresPassphrase,
        capabilities: d.capabilities,
        fees: {
          trading: {
            maker: d.fees.maker,
            taker: d.fees.taker,
            percentage: d.fees.percentage,
            tier_based: d.fees.tierBased,
          },
        },
        rate_limit: {
          interval_ms: d.rateLimitMs,
          requests_per_second: d.rateLimitMs > 0 ? Math.round((1000 / d.rateLimitMs) * 100) / 100 : null,
        },
        limits: {
          markets_count: markets?.length ?? null,
          quote_currencies: markets ? quoteCurrencies(markets) : null,
          min_cost_by_quote: markets ? minCostByQuote(markets) : null,
          markets_error: marketsError,
        },
        urls: d.urls,
      };
    },

    async markets(venue: Venue) {
      const markets = await gateway.markets(venue);
      const sorted = [...markets].sort((a, b) => a.symbol.localeCompare(b.symbol));
      return { exchange: venue, count: sorted.length, markets: sorted.map(marketView) };
    },

    async ticker(venue: Venue, symbol: string) {
      const market = resolveSymbol(await gateway.markets(venue), symbol);
      if (!market) throw notFound(`${venue} does not list ${symbol}`);
      const [ticker] = await gateway.tickers(venue, [market.symbol]);
      if (!ticker) throw notFound(`${venue} has no ticker for ${market.symbol}`);
      await deps.prices.remember([{ base: market.base, quote: market.quote, last: ticker.last }]);
      return tickerView(venue, ticker);
    },

    async quotes(venue: Venue, base: string, currentQuote?: string) {
      const wantedBase = base.trim().toUpperCase();
      const markets = (await gateway.markets(venue)).filter((m) => m.base.toUpperCase() === wantedBase);
      const tickers = await gateway.tickers(
        venue,
        markets.map((m) => m.symbol),
      );
      await deps.prices.remember(tickers.map((t) => ({ ...splitSymbol(t.symbol), last: t.last })));
      const quotes = rankQuotes(markets, tickers);
      const current = currentQuote?.trim().toUpperCase();
      return {
        exchange: venue,
        base: wantedBase,
        quotes,
        count: quotes.length,
        current_quote: current
          ? { quote: current, surviving: quotes.some((q) => q.quote === current && q.active) }
          : null,
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
