import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from '../../platform/http/schemas.ts';

const int = (description: string) => Type.Integer({ description });
const when = (description: string) => Nullable(DateTime(description));

const Upstream = Type.Object({
  healthy: Type.Boolean({ description: 'Breaker closed and the last call (if any) succeeded.' }),
  breaker_open: Type.Boolean({
    description:
      "The venue's one breaker, the same that `/api/exchange/health` and the dashboard report: " +
      'open while every call is paused (after 429/418 or five failures in a row).',
  }),
  breaker_until: when('Until when the breaker holds.'),
  breaker_reason: Nullable(Type.String({ description: 'What opened it.' })),
  circuit: Type.String({
    description: "The same breaker as `breaker_open`, in this answer's earlier words: `closed` or `open`.",
  }),
  open_until: when('The same as `breaker_until`.'),
  open_reason: Nullable(Type.String({ description: 'The same as `breaker_reason`.' })),
  consecutive_failures: int('Failed calls to the venue since the last success, on this instance.'),
  calls: int('Calls made by this instance since it started.'),
  failures: int('Failed calls since start.'),
  last_success_at: when('Last successful call.'),
  last_failure_at: when('Last failed call.'),
  last_error: Nullable(Type.String({ description: 'What the last failure was.' })),
  used_weight_1m: Nullable(
    int('Request weight used in the current minute, as the upstream last reported it (Binance).'),
  ),
  weight_limit_1m: Nullable(int("The upstream's request-weight limit per minute (Binance).")),
  weight_budget_1m: Nullable(int('The share of the limit this service allows itself; calls beyond it are refused.')),
});

export const StatusResponse = Type.Object({
  source: Type.String({ description: 'Configured market data source: `binance` (with CoinGecko) or `simulated`.' }),
  status: Type.String({
    description: '`ok`, `degraded` (an upstream paused or failing, or the stream down and REST serving), or `down`.',
  }),
  last_update: when('Newest data fetched by this instance.'),
  upstreams: Type.Record(Type.String(), Upstream, {
    description: 'Upstream name → health and budget (`binance`, `coingecko`).',
  }),
  live_stream: Type.Object(
    {
      enabled: Type.Boolean({ description: 'Whether the stream is configured (MARKET_LIVE_STREAM).' }),
      status: Type.String({
        description:
          '`connected`, `connecting`, `reconnecting`, `idle` (server not listening), `stopped` or `disabled`.',
      }),
      live: Type.Boolean({ description: 'Prices are served from the stream.' }),
      serving: Type.String({ description: '`stream`, or `rest` (fallback while the stream is not live).' }),
      connected_since: when('When the current connection opened.'),
      last_message_at: when('Last message received.'),
      reconnects: int('Reconnect attempts since start.'),
      next_attempt_at: when('While reconnecting: when the next attempt is made.'),
      last_error: Nullable(Type.String({ description: 'Why the stream last failed.' })),
      symbols: int('Symbols in the live price map.'),
    },
    { description: 'The WebSocket price stream.' },
  ),
  caches: Type.Array(
    Type.Object({
      key: Type.String({ description: 'Cache entry, e.g. `tickers`, `candles:BTCUSDT:1h`.' }),
      age_seconds: Type.Number({ description: 'Age of the entry.' }),
      ttl_seconds: Type.Number({ description: 'How long it counts as fresh.' }),
      fresh: Type.Boolean({ description: 'Younger than its TTL.' }),
    }),
    { description: 'Entries held by this instance, newest first (at most 100).' },
  ),
});
export type StatusResponse = Static<typeof StatusResponse>;
