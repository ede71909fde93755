import { Type, type Static } from 'typebox';
import { DateTime, StringEnum } from '../../platform/http/schemas.ts';
import { INTERVALS } from './intervals.domain.ts';
import { FreshnessFields, Limit, PairFields, SymbolParam } from './common.schemas.ts';

const IntervalParam = Type.Optional(
  StringEnum(INTERVALS, { default: '1h', description: `Candle interval: ${INTERVALS.join(', ')}. Default 1h.` }),
);

export const OhlcQuery = Type.Object({
  symbol: SymbolParam('The pair.'),
  interval: IntervalParam,
  limit: Limit(1, 1000, 100, 'Number of most recent candles;'),
});
export type OhlcQuery = Static<typeof OhlcQuery>;

export const OhlcRangeQuery = Type.Object({
  symbol: SymbolParam('The pair.'),
  interval: IntervalParam,
  start: DateTime(
    'Start of the window (ISO 8601; UTC when it has no offset), inclusive: candles opening at or after it.',
  ),
  end: DateTime(
    'End of the window (ISO 8601; UTC when it has no offset), inclusive: candles opening ' +
      'at or before it; after `start`.',
  ),
  limit: Limit(1, 2000, 1000, 'At most this many candles, the most recent in the window;'),
});
export type OhlcRangeQuery = Static<typeof OhlcRangeQuery>;

const num = (description: string) => Type.Number({ description });

export const CandleRow = Type.Object({
  open_time: DateTime('Open time of the candle.'),
  close_time: DateTime('Close time of the candle (the last millisecond it covers).'),
  timestamp: Type.Integer({ description: 'Open time in milliseconds since the epoch, for charting.' }),
  open: num('Open price.'),
  high: num('High price.'),
  low: num('Low price.'),
  close: num('Close price (last price while the candle is open).'),
  volume: num('Volume in the base asset.'),
  quote_volume: num('Volume in the quote asset.'),
  trades: Type.Integer({ description: 'Number of trades.' }),
});
export type CandleRow = Static<typeof CandleRow>;

const CandleFields = {
  ...PairFields,
  interval: Type.String({ description: 'Candle interval.' }),
  candles: Type.Array(CandleRow, { description: 'Oldest first.' }),
  count: Type.Integer({ description: 'Number of candles.' }),
};

export const OhlcResponse = Type.Object({ ...CandleFields, ...FreshnessFields });
export type OhlcResponse = Static<typeof OhlcResponse>;

export const OhlcRangeResponse = Type.Object({
  ...CandleFields,
  start: DateTime('Start of the window.'),
  end: DateTime('End of the window.'),
  limit: Type.Integer({ description: 'The limit applied.' }),
  truncated: Type.Boolean({
    description: 'True when the window holds older candles than the ones returned (the limit was reached).',
  }),
  ...FreshnessFields,
});
export type OhlcRangeResponse = Static<typeof OhlcRangeResponse>;

export const OrderBookQuery = Type.Object({
  symbol: SymbolParam('The pair.'),
  depth: Limit(5, 100, 20, 'Price levels per side;'),
});
export type OrderBookQuery = Static<typeof OrderBookQuery>;

const Level = Type.Object({ price: num('Price of the level.'), quantity: num('Quantity in the base asset.') });

export const OrderBookResponse = Type.Object({
  ...PairFields,
  depth: Type.Integer({ description: 'Levels per side asked for.' }),
  last_update_id: Type.Integer({ description: "The venue's book update id." }),
  bids: Type.Array(Level, { description: 'Best (highest) bid first.' }),
  asks: Type.Array(Level, { description: 'Best (lowest) ask first.' }),
  best_bid: Type.Union([num('Highest bid.'), Type.Null()]),
  best_ask: Type.Union([num('Lowest ask.'), Type.Null()]),
  mid_price: Type.Union([num('Midpoint of best bid and ask.'), Type.Null()]),
  spread: Type.Union([num('Best ask minus best bid.'), Type.Null()]),
  spread_percent: Type.Union([num('Spread relative to the mid price, in percent.'), Type.Null()]),
  bid_volume: num('Sum of the bid quantities shown, base asset.'),
  ask_volume: num('Sum of the ask quantities shown, base asset.'),
  ...FreshnessFields,
});
export type OrderBookResponse = Static<typeof OrderBookResponse>;
