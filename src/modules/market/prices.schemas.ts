import { Type, type Static } from 'typebox';
import { DateTime, StringEnum } from '../../platform/http/schemas.ts';
import { FreshnessFields, Limit, PairFields, SymbolList, SymbolParam } from './common.schemas.ts';

const TICKER_TYPES = ['24hr', 'price'] as const;

export const TickerQuery = Type.Object({
  type: Type.Optional(
    StringEnum(TICKER_TYPES, {
      default: '24hr',
      description: '`24hr`: 24 h statistics; `price`: last price only. Default 24hr.',
    }),
  ),
  symbols: Type.Optional(
    SymbolList(
      'Pairs to answer, in this order. Without it: the most traded pairs by 24 h quote volume (valued in USDT).',
    ),
  ),
  limit: Limit(1, 100, 20, 'Number of pairs when `symbols` is absent;'),
});
export type TickerQuery = Static<typeof TickerQuery>;

const num = (description: string) => Type.Number({ description });

export const TickerRow = Type.Object({
  ...PairFields,
  price: num('Last price.'),
  open: Type.Optional(num('Price 24 h ago (type 24hr only).')),
  high: Type.Optional(num('24 h high (type 24hr only).')),
  low: Type.Optional(num('24 h low (type 24hr only).')),
  change: Type.Optional(num('Price change over 24 h (type 24hr only).')),
  change_percent: Type.Optional(num('Price change over 24 h in percent (type 24hr only).')),
  weighted_avg_price: Type.Optional(num('Volume-weighted average price over 24 h (type 24hr only).')),
  bid: Type.Optional(num('Best bid (type 24hr only).')),
  ask: Type.Optional(num('Best ask (type 24hr only).')),
  volume: Type.Optional(num('24 h volume in the base asset (type 24hr only).')),
  quote_volume: Type.Optional(num('24 h volume in the quote asset (type 24hr only).')),
  trades: Type.Optional(Type.Integer({ description: 'Trades in 24 h (type 24hr only).' })),
  open_time: Type.Optional(DateTime('Start of the 24 h window (type 24hr only).')),
  close_time: Type.Optional(DateTime('End of the 24 h window (type 24hr only).')),
  ...FreshnessFields,
});
export type TickerRow = Static<typeof TickerRow>;
export const TickerResponse = Type.Array(TickerRow, { description: 'One row per pair.' });

export const PricesQuery = Type.Object({ symbols: SymbolList('Pairs to price.') });
export const LivePricesQuery = Type.Object({
  symbols: Type.Optional(
    SymbolList('Pairs to price; without it every pair the stream (or, when it is down, the venue) has.'),
  ),
});
export const PriceParams = Type.Object({ symbol: SymbolParam('The pair.') });
export const PriceQuery = Type.Object({
  exchange: Type.Optional(
    Type.String({
      maxLength: 40,
      description: 'Reserved for future use; accepted and ignored (prices come from Binance).',
    }),
  ),
});

const PRICE_FEEDS = ['stream', 'rest', 'simulated'] as const;

export const PriceEntry = Type.Object({
  ...PairFields,
  price: num('Last price.'),
  feed: StringEnum(PRICE_FEEDS, {
    description:
      "`stream`: the live WebSocket price map; `rest`: the venue's REST price list (stream down); `simulated`.",
  }),
  updated_at: DateTime('Time of the price: the stream event, or the REST fetch.'),
});
export type PriceEntry = Static<typeof PriceEntry>;

export const PricesResponse = Type.Object({
  prices: Type.Record(Type.String(), PriceEntry, { description: 'Venue symbol → price.' }),
  count: Type.Integer({ description: 'Number of prices.' }),
  ...FreshnessFields,
});
export type PricesResponse = Static<typeof PricesResponse>;

const StreamSummary = Type.Object({
  status: Type.String({ description: '`connected`, `connecting`, `reconnecting`, `idle`, `stopped` or `disabled`.' }),
  live: Type.Boolean({ description: 'Prices are being served from the stream.' }),
  last_message_at: Type.Union([DateTime('Last message from the stream.'), Type.Null()]),
});

export const LivePricesResponse = Type.Object({
  prices: Type.Record(Type.String(), PriceEntry, { description: 'Venue symbol → price.' }),
  count: Type.Integer({ description: 'Number of prices.' }),
  feed: StringEnum(PRICE_FEEDS, {
    description: 'Where most prices came from: `stream`, or `rest` while the stream is down.',
  }),
  stream: StreamSummary,
  ...FreshnessFields,
});
export type LivePricesResponse = Static<typeof LivePricesResponse>;

export const PriceResponse = Type.Object({
  ...PriceEntry.properties,
  exchange: Type.String({ description: 'The venue the price comes from: `binance` (or `simulated`).' }),
  ...FreshnessFields,
});
export type PriceResponse = Static<typeof PriceResponse>;

export const SymbolsResponse = Type.Object({
  symbols: Type.Array(
    Type.Object({ ...PairFields, status: Type.String({ description: 'Venue status; always `TRADING` here.' }) }),
    { description: 'Pairs that are trading, in venue order.' },
  ),
  count: Type.Integer({ description: 'Number of pairs.' }),
  quote_assets: Type.Array(Type.String(), { description: 'Distinct quote assets, sorted.' }),
  ...FreshnessFields,
});
export type SymbolsResponse = Static<typeof SymbolsResponse>;
