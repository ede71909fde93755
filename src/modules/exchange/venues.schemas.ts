// Public venue data: requests and responses.
import { Type } from 'typebox';
import { DateTime, Nullable, StringEnum } from '../../platform/http/schemas.ts';
import { VenueField } from './common.schemas.ts';

const N = (description: string) => Nullable(Type.Number({ description }));
const Code = (description: string) => Type.String({ minLength: 1, maxLength: 20, description });
const Capabilities = Type.Record(Type.String(), Type.Boolean(), {
  description: 'ccxt capability → supported (emulated counts as supported).',
});

export const VenueQuery = Type.Object({ exchange: VenueField() });
export const VenueParams = Type.Object({ exchange_name: VenueField() });
export const TickerQuery = Type.Object({
  exchange: VenueField(),
  symbol: Type.String({ minLength: 1, maxLength: 40, description: 'Pair: BTCUSDT, BTC/USDT or BTC-USDT, any case.' }),
});
export const QuotesQuery = Type.Object({
  base: Code('Base currency, e.g. BTC.'),
  exchange: VenueField(),
  current_quote: Type.Optional(Code('The quote you use now; reported back as surviving or not.')),
});
export const RouteQuery = Type.Object({
  base: Code('Base currency to buy, e.g. BTC.'),
  quote: Code('Quote currency to pay with, e.g. USDT.'),
  size: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description: 'Order size in the base currency; venues whose min_amount exceeds it are excluded.',
    }),
  ),
  quote_size: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description: 'Order notional in the quote currency; venues whose min_cost exceeds it are excluded.',
    }),
  ),
});
export const HealthQuery = Type.Object({
  force_refresh: Type.Boolean({
    default: false,
    description: "Check now instead of answering from the last minute's result (admins only; ignored for others).",
  }),
});

export const Supported = Type.Object({
  exchanges: Type.Array(
    Type.Object({
      id: Type.String({ description: 'ccxt id, the value of `exchange` / `exchange_name` parameters.' }),
      name: Type.String({ description: 'Display name.' }),
      requires_passphrase: Type.Boolean({ description: 'Whether keys come with a passphrase (api_passphrase).' }),
      is_default: Type.Boolean({ description: 'The default venue (binanceus).' }),
      capabilities: Capabilities,
    }),
  ),
  default_exchange: Type.String({ description: 'binanceus.' }),
  total: Type.Integer({ description: 'How many venues.' }),
});

export const Info = Type.Object({
  exchange: Type.String({ description: 'ccxt id.' }),
  name: Type.String({ description: 'Display name.' }),
  countries: Type.Array(Type.String(), { description: 'ISO country codes ccxt lists.' }),
  is_default: Type.Boolean({ description: 'Whether it is the default venue.' }),
  requires_passphrase: Type.Boolean({ description: 'Whether keys come with a passphrase.' }),
  capabilities: Capabilities,
  fees: Type.Object({
    trading: Type.Object({
      maker: N('Default maker fee rate (0.001 = 0.1 %).'),
      taker: N('Default taker fee rate.'),
      percentage: Nullable(Type.Boolean({ description: 'Fees are rates, not fixed amounts.' })),
      tier_based: Nullable(Type.Boolean({ description: 'Fees fall with volume tiers.' })),
    }),
  }),
  rate_limit: Type.Object({
    interval_ms: Type.Number({ description: 'Milliseconds between requests that ccxt keeps to.' }),
    requests_per_second: N('The same as a rate.'),
  }),
  limits: Type.Object({
    markets_count: Nullable(Type.Integer({ description: 'Spot markets listed.' })),
    quote_currencies: Nullable(Type.Array(Type.String(), { description: 'Quote currencies, most used first.' })),
    min_cost_by_quote: Nullable(
      Type.Record(Type.String(), Type.Number(), { description: 'Smallest order notional per quote currency.' }),
    ),
    markets_error: Nullable(
      Type.String({ description: 'Why market limits are missing (venue unreachable within 3 s).' }),
    ),
  }),
  urls: Type.Object({
    www: Nullable(Type.String({ description: 'Web site.' })),
    doc: Type.Array(Type.String(), { description: 'API documentation.' }),
    fees: Nullable(Type.String({ description: 'Fee schedule.' })),
  }),
});

const Market = Type.Object({
  symbol: Type.String({ description: 'Unified pair (BTC/USDT).' }),
  id: Type.String({ description: "The venue's id (BTCUSDT)." }),
  base: Type.String({ description: 'Base currency.' }),
  quote: Type.String({ description: 'Quote currency.' }),
  active: Type.Boolean({ description: 'Trading.' }),
  min_amount: N('Smallest order size in the base currency (Binance LOT_SIZE minQty).'),
  max_amount: N('Largest order size.'),
  min_cost: N('Smallest order notional (Binance NOTIONAL / MIN_NOTIONAL minNotional).'),
  price_precision: N('Price tick.'),
  amount_precision: N('Size step.'),
  maker_fee: N('Maker fee rate.'),
  taker_fee: N('Taker fee rate.'),
});

export const Markets = Type.Object({
  exchange: Type.String({ description: 'Venue.' }),
  count: Type.Integer({ description: 'Spot markets.' }),
  markets: Type.Array(Market, { description: 'By symbol.' }),
});

export const Ticker = Type.Object({
  exchange: Type.String({ description: 'Venue.' }),
  symbol: Type.String({ description: 'Unified pair.' }),
  last: N('Last price.'),
  bid: N('Best bid.'),
  ask: N('Best ask.'),
  high: N('24 h high.'),
  low: N('24 h low.'),
  open: N('24 h open.'),
  close: N('Last close.'),
  change: N('24 h change.'),
  percentage: N('24 h change in percent.'),
  base_volume: N('24 h volume in the base currency.'),
  quote_volume: N('24 h volume in the quote currency.'),
  vwap: N('24 h volume-weighted average price.'),
  timestamp: Nullable(DateTime('When the venue computed it.')),
});

export const Quotes = Type.Object({
  exchange: Type.String({ description: 'Venue.' }),
  base: Type.String({ description: 'Base currency.' }),
  quotes: Type.Array(
    Type.Object({
      quote: Type.String({ description: 'Quote currency.' }),
      symbol: Type.String({ description: 'Unified pair.' }),
      price: N('Last price.'),
      base_volume_24h: N('24 h volume in the base currency: the liquidity order.'),
      quote_volume_24h: N('24 h volume in this quote currency.'),
      min_amount: N('Smallest order size.'),
      min_cost: N('Smallest order notional.'),
      active: Type.Boolean({ description: 'Trading.' }),
    }),
    {
      description:
        'Active first, then most liquid first (24 h volume in the base currency, i.e. quote volume in one currency).',
    },
  ),
  count: Type.Integer({ description: 'How many quotes.' }),
  current_quote: Nullable(
    Type.Object({
      quote: Type.String({ description: 'The quote you asked about.' }),
      surviving: Type.Boolean({ description: 'Whether the venue still lists base/quote as trading.' }),
    }),
  ),
});

const RouteEntry = Type.Object({
  exchange: Type.String({ description: 'Venue.' }),
  symbol: Type.String({ description: 'Unified pair.' }),
  price: Type.Number({ description: 'Best ask (last price when the venue gives no book).' }),
  bid: N('Best bid.'),
  ask: N('Best ask.'),
  taker_fee: Type.Number({ description: 'Taker fee rate.' }),
  effective_price: Type.Number({ description: 'price × (1 + taker_fee): what a buy costs per unit.' }),
  min_amount: N('Smallest order size (LOT_SIZE minQty).'),
  min_cost: N('Smallest order notional (NOTIONAL / MIN_NOTIONAL).'),
  rank: Type.Integer({ description: '1 = cheapest.' }),
});

export const RouteResult = Type.Object({
  base: Type.String({ description: 'Base currency.' }),
  quote: Type.String({ description: 'Quote currency.' }),
  side: Type.String({ description: 'buy: routes are ranked for buying base with quote.' }),
  size: N('The size asked for.'),
  quote_size: N('The notional asked for.'),
  best: Nullable(RouteEntry),
  routes: Type.Array(RouteEntry, { description: 'Cheapest effective price first.' }),
  excluded: Type.Array(
    Type.Object({
      exchange: Type.String(),
      symbol: Type.String(),
      reason: Type.String({ description: 'Which minimum the order is below.' }),
    }),
    { description: 'Venues listing the pair whose minimums the order does not meet.' },
  ),
  unavailable: Type.Array(
    Type.Object({
      exchange: Type.String(),
      reason: Type.String({ description: 'Why (unreachable, timed out after 3 s, ...).' }),
    }),
    {
      description: 'Venues that could not be asked.',
    },
  ),
  not_listed: Type.Array(Type.String(), { description: 'Venues that do not list the pair.' }),
  checked_at: DateTime('When the venues were asked.'),
});

/** The venue's shared request-weight budget (docs/decisions/110); live, never cached. */
const VenueBudget = Type.Object(
  {
    used_weight_1m: N(
      "Request weight used in the current minute by this service's instances (raised to the venue's own " +
        'count); null without a weight model.',
    ),
    limit_1m: N(
      "The venue's per-minute request-weight limit (from exchangeInfo once read); null without a weight model.",
    ),
    cap_1m: N('The part of the limit calls are admitted to (limit × share); beyond it calls wait or answer 503.'),
    share: Type.Number({
      description: 'Share of the limit this service allows itself (VENUE_WEIGHT_SHARE_PERCENT / 100).',
    }),
    limit_source: Nullable(
      StringEnum(['venue', 'default'] as const, {
        description: 'Whether the limit came from the venue or is the documented default.',
      }),
    ),
    breaker_open: Type.Boolean({
      description: 'A 429 or 418 from the venue pauses every call to it, on every instance.',
    }),
    breaker_until: Nullable(DateTime('Until when the breaker holds.')),
    breaker_reason: Nullable(Type.String({ description: 'The venue answer that opened it.' })),
    scope: StringEnum(['shared', 'local'] as const, {
      description:
        'shared: counted across instances in Redis; local: this instance alone (no Redis, or Redis failing).',
    }),
  },
  { description: "The venue's request-weight budget, shared by every user's keys, market data and every instance." },
);

export const VenueHealth = Type.Object({
  exchange: Type.String({ description: 'Venue.' }),
  status: StringEnum(['healthy', 'maintenance', 'rate_limited', 'unreachable', 'error'] as const, {
    description: 'Result of the last check.',
  }),
  latency_ms: N('Round trip of the status (or server-time) call.'),
  error: Nullable(Type.String({ description: 'What went wrong.' })),
  checked_at: DateTime('When the venue was checked.'),
  cached: Type.Boolean({ description: "Answered from the last minute's check." }),
  budget: VenueBudget,
});

export const Health = Type.Object({
  status: StringEnum(['healthy', 'degraded', 'unhealthy'] as const, {
    description: 'healthy: all venues; unhealthy: none; degraded otherwise.',
  }),
  healthy_count: Type.Integer({ description: 'Healthy venues.' }),
  total: Type.Integer({ description: 'Venues checked.' }),
  exchanges: Type.Record(Type.String(), VenueHealth, { description: 'Venue → its health.' }),
  checked_at: DateTime('When this answer was assembled.'),
});
