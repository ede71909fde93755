// The integrations answer: one entry per external system, each with the same core fields. Nothing
// here can carry a secret: flags, counts, times and cleaned error texts only.
import { Type, type Static, type TProperties } from 'typebox';
import { DateTime, Nullable, StringEnum } from '../../platform/http/schemas.ts';

const int = (description: string) => Type.Integer({ minimum: 0, description });
const when = (description: string) => Nullable(DateTime(description));

const core = {
  configured: Type.Boolean({
    description: 'Whether this deployment is set up to use the system (see the route description per system).',
  }),
  reachable: Nullable(
    Type.Boolean({
      description:
        'Result of the latest reachability check; null when the system is not probed (not ' +
        'configured, or no safe probe exists).',
    }),
  ),
  checked_at: when('When reachability was last checked (checks are reused for 60 seconds).'),
  last_success_at: when('Latest successful exchange with the system that this service knows of.'),
  last_error_at: when('Latest failure still standing.'),
  last_error: Nullable(
    Type.String({ description: 'What failed, cleaned: no URL beyond its host, no token, at most 200 characters.' }),
  ),
};

// The system-specific fields first (the venue or provider name leads), then the shared ones.
const Entry = <T extends TProperties>(description: string, extra: T) =>
  Type.Object({ ...extra, ...core }, { description });

export const IntegrationsAnswer = Type.Object({
  generated_at: DateTime('When this answer was made.'),
  probe_ttl_seconds: int('How long a reachability check is reused.'),
  exchanges: Type.Array(
    Entry('A trading venue.', {
      venue: Type.String({ description: 'ccxt id of the venue.' }),
      credentials: int('Active credentials users stored for the venue; configured when at least one.'),
      health: Nullable(
        StringEnum(['healthy', 'maintenance', 'rate_limited', 'unreachable', 'error'] as const, {
          description: 'The venue health check result; null when not probed (no credentials stored).',
        }),
      ),
      latency_ms: Nullable(Type.Number({ description: 'Latency of the health check.' })),
      budget: Type.Object(
        {
          used_weight_1m: Nullable(
            int('Request weight used this minute across instances; null without a weight model.'),
          ),
          limit_1m: Nullable(int("The venue's per-minute limit.")),
          cap_1m: Nullable(int('The part of it calls are admitted to.')),
          share: Type.Number({ description: 'Share of the limit this service allows itself.' }),
          breaker_open: Type.Boolean({ description: 'A 429 or 418 pauses every call to the venue.' }),
          breaker_until: when('Until when.'),
          scope: StringEnum(['shared', 'local'] as const, {
            description: 'Counted across instances (Redis) or on this instance alone.',
          }),
        },
        { description: "The venue's shared request-weight budget, read now (no venue call)." },
      ),
    }),
    { description: 'Every supported venue.' },
  ),
  market_data: Entry(
    'Market data upstreams (Binance and CoinGecko, public endpoints); reachability is ' +
      'Binance answering `GET /api/v3/ping`.',
    {
      source: Type.String({ description: '`binance` (with CoinGecko) or `simulated`; configured unless simulated.' }),
      status: Type.String({ description: '`ok`, `degraded` or `down`, from calls this instance made.' }),
      latency_ms: Nullable(Type.Number({ description: 'Latency of the latest Binance ping.' })),
      live_stream: Type.Object(
        {
          enabled: Type.Boolean({ description: 'Whether the WebSocket price stream is configured.' }),
          status: Type.String({
            description: '`connected`, `connecting`, `reconnecting`, `idle`, `stopped` or `disabled`.',
          }),
          live: Type.Boolean({ description: 'Prices are served from the stream.' }),
        },
        { description: 'The live price stream.' },
      ),
    },
  ),
  tracker: Entry('The issue tracker.', {
    backend: StringEnum(['local', 'linear'] as const, {
      description: '`linear` (configured) or `local` (issues kept in our database).',
    }),
    latency_ms: Nullable(Type.Number({ description: 'Latency of the latest health check.' })),
  }),
  chat: Entry('Chat notifications through an incoming webhook.', {
    format: StringEnum(['slack', 'discord'] as const, { description: 'Message format of the webhook.' }),
    pending: int('Messages waiting for delivery.'),
    dead_letters: int('Messages that exhausted their retries.'),
  }),
  mail: Entry('E-mail over SMTP; reachability is the relay answering a connect and greeting (nothing is sent).', {
    latency_ms: Nullable(Type.Number({ description: 'Latency of the latest check of the relay.' })),
    last_delivery_at: when('Latest mail the relay accepted (last_success_at also counts successful checks).'),
    pending: int('Mails waiting for delivery.'),
    dead_letters: int('Mails that exhausted their retries.'),
  }),
  webhooks: Type.Array(
    Entry('An inbound webhook provider; configured when its signing secret is set.', {
      provider: Type.String({
        description: '`codehost`, `payments`, `edge`, `tracker`, `errormon`, `database`, `authprovider` or `mailer`.',
      }),
      last_delivery_at: when('Latest delivery received.'),
      last_refused_at: when(
        'Latest delivery refused for its signature: anyone can send one, so it is shown here and not as ' +
          'last_error (recorded at most once a minute, kept 7 days).',
      ),
      last_refusal: Nullable(Type.String({ description: 'Why that delivery was refused, cleaned as last_error is.' })),
    }),
    { description: 'Every inbound webhook provider.' },
  ),
  redis: Entry('Redis, for shared caches, rate limits and locks.', {
    latency_ms: Nullable(Type.Number({ description: 'Latency of the latest ping.' })),
  }),
});
export type IntegrationsAnswer = Static<typeof IntegrationsAnswer>;
export type IntegrationCore = { [K in keyof typeof core]: Static<(typeof core)[K]> };
