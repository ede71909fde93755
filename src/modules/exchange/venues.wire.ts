// The public venue data on the wire: the venues, routing and health services return descriptions,
// markets, tickers, ranked routes and checks, and the routes answer them through these mappers, each
// typed by its response schema.
import type { Static } from 'typebox';
import { iso } from '../../platform/http/schemas.ts';
import { budgetView } from '../../platform/venue-budget/venue-budget.ts';
import type { VenueDescription, VenueMarket, VenueTicker } from './adapters/venue-gateway.ts';
import type { VenueHealth, VenuesHealth } from './health.service.ts';
import type { RouteAnswer } from './routing.service.ts';
import { DEFAULT_VENUE, type Venue } from './venues.domain.ts';
import type {
  Health,
  Info,
  Markets,
  Quotes,
  RouteResult,
  Supported,
  Ticker,
  VenueHealth as VenueHealthSchema,
} from './venues.schemas.ts';
import type { VenueInfo, VenueQuotes } from './venues.service.ts';

export function supportedWire(descriptions: VenueDescription[]): Static<typeof Supported> {
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
}

export function infoWire(info: VenueInfo): Static<typeof Info> {
  const d = info.description;
  return {
    exchange: info.venue,
    name: d.name,
    countries: d.countries,
    is_default: info.venue === DEFAULT_VENUE,
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
      markets_count: info.limits?.marketsCount ?? null,
      quote_currencies: info.limits?.quoteCurrencies ?? null,
      min_cost_by_quote: info.limits?.minCostByQuote ?? null,
      markets_error: info.marketsError,
    },
    urls: d.urls,
  };
}

function marketWire(m: VenueMarket): Static<typeof Markets>['markets'][number] {
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

export function marketsWire(venue: Venue, markets: VenueMarket[]): Static<typeof Markets> {
  return { exchange: venue, count: markets.length, markets: markets.map(marketWire) };
}

export function tickerWire(venue: Venue, t: VenueTicker): Static<typeof Ticker> {
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

export function quotesWire(answer: VenueQuotes): Static<typeof Quotes> {
  return {
    exchange: answer.venue,
    base: answer.base,
    quotes: answer.quotes,
    count: answer.quotes.length,
    current_quote: answer.current,
  };
}

/** Routes are ranked for buying base with quote; the best is the first. */
export function routeWire(answer: RouteAnswer): Static<typeof RouteResult> {
  return {
    base: answer.base,
    quote: answer.quote,
    side: 'buy',
    size: answer.size,
    quote_size: answer.quoteSize,
    best: answer.routes[0] ?? null,
    routes: answer.routes,
    excluded: answer.excluded,
    unavailable: answer.unavailable.map((u) => ({ exchange: u.venue, reason: u.reason })),
    not_listed: answer.notListed,
    checked_at: answer.checkedAt.toISOString(),
  };
}

export function venueHealthWire(health: VenueHealth): Static<typeof VenueHealthSchema> {
  return {
    exchange: health.venue,
    status: health.status,
    latency_ms: health.latencyMs,
    error: health.error,
    checked_at: iso(health.checkedAt)!,
    cached: health.cached,
    budget: budgetView(health.budget),
  };
}

export function healthWire(health: VenuesHealth): Static<typeof Health> {
  return {
    status: health.status,
    healthy_count: health.healthyCount,
    total: health.venues.length,
    exchanges: Object.fromEntries(health.venues.map((v) => [v.venue, venueHealthWire(v)])),
    checked_at: iso(health.checkedAt)!,
  };
}
