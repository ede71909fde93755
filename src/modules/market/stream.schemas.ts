// The price stream (GET /api/v1/market/stream): its query and the events it sends, as the OpenAPI
// document shows them. Each SSE message's `data:` line is one of these objects as JSON.
import { Type, type Static } from 'typebox';
import { DateTime, StringEnum } from '../../platform/http/schemas.ts';
import { sseMessage, StreamEnd } from '../../platform/http/sse.ts';

/** Most symbols one price stream may name. */
export const MAX_STREAM_SYMBOLS = 200;

const PRICE_SOURCES = ['stream', 'rest', 'simulated'] as const;

export const PriceStreamQuery = Type.Object({
  symbols: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 8200,
      description:
        `Pairs to follow, comma-separated, at most ${MAX_STREAM_SYMBOLS}; each as BTCUSDT, BTC/USDT or BTC-USDT, ` +
        'in any case. Without it: every trading pair. An unlisted symbol answers 422.',
    }),
  ),
});
export type PriceStreamQuery = Static<typeof PriceStreamQuery>;

export const PriceEvent = Type.Object(
  {
    symbol: Type.String({ description: 'Pair in the venue form, e.g. `BTCUSDT`.' }),
    price: Type.Number({ description: 'Last price.' }),
    ts: DateTime("Time of the price: the venue's event time (stream) or the time the price list was fetched (rest)."),
    source: StringEnum(PRICE_SOURCES, {
      description:
        "`stream`: Binance's WebSocket stream; `rest`: REST polling while the stream is down; `simulated` " +
        'with MARKET_DATA_SOURCE=simulated.',
    }),
  },
  { title: 'PriceEvent', description: "Event `price`: a pair's new last price, at most one per pair per 250 ms." },
);
export type PriceEvent = Static<typeof PriceEvent>;

export const PriceSnapshot = Type.Object(
  {
    prices: Type.Array(PriceEvent, {
      description: "Every requested pair's last price, in the order asked (venue order without `symbols`).",
    }),
    count: Type.Integer({ description: 'Number of prices.' }),
  },
  { title: 'PriceSnapshot', description: 'Event `snapshot`: the first event of every price stream.' },
);
export type PriceSnapshot = Static<typeof PriceSnapshot>;

export const PRICE_STREAM_DESCRIPTION =
  'A `text/event-stream` (Server-Sent Events). The stream opens with `retry:` (milliseconds a client waits ' +
  "before reconnecting), then sends `snapshot` (every requested pair's last price), then `price` events as " +
  "Binance's stream moves, at most one per pair per 250 ms; while the WebSocket stream is down, prices come " +
  'from REST polling (`source: "rest"`). A `: ping` comment after 15 s (STREAM_PING_SECONDS) without another ' +
  'event keeps proxies from closing an idle stream. The server ends a stream with an `end` event: at shutdown, or when the ' +
  'client reads too slowly (STREAM_MAX_BUFFER_BYTES). A reconnect gets a fresh snapshot. Limits per instance: ' +
  'price streams take at most 80% of STREAM_MAX_CONNECTIONS (503 with Retry-After beyond; the rest is kept for ' +
  'account streams), and STREAM_MAX_PER_ADDRESS per client address (429 with Retry-After beyond).';

export const PriceStreamFrames = Type.Union(
  [
    sseMessage('PriceSnapshotMessage', 'snapshot', PriceSnapshot),
    sseMessage('PriceMessage', 'price', PriceEvent),
    sseMessage('StreamEndMessage', 'end', StreamEnd),
  ],
  { description: 'The messages of the stream, one per SSE event.' },
);
