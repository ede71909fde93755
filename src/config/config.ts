// The one reader of process.env. Every setting is declared once, in SETTINGS: its variable, its
// default and its bounds. The Config type is derived from those declarations and loadConfig reads
// them all, collecting every problem so that one start lists them all. Reading writes nothing: the
// secrets that may live in DATA_DIR are the platform's to resolve at start (data-dir-secrets.ts).
import path from 'node:path';
import { type Env, EnvReader } from './env-reader.ts';
import { isIpOrCidr } from './ip-ranges.ts';
import { parseJobCrons, type Known } from './job-schedules.ts';
import { readTradingLimitDefaults } from './trading-limits.ts';
import { readWebauthn } from './webauthn-settings.ts';
import { readNotify, readSignals } from './signals-settings.ts';
import { paperBalances } from './paper-settings.ts';
import { readExternalTokens } from './external-token-settings.ts';

export type ChatFormat = 'slack' | 'discord';

export type { ExternalTokenSettings } from './external-token-settings.ts';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'];

/** Whether the server listens beyond this machine, where development-only settings are refused. */
function isExposed(host: string): boolean {
  return !['127.0.0.1', '::1', 'localhost'].includes(host) && !host.startsWith('127.');
}

/** The shortest SCHEDULED_JOB_SECRET an exposed server accepts: guessable secrets run jobs for anyone. */
const MIN_EXPOSED_JOB_SECRET_LENGTH = 32;

// ---- The kinds of setting -------------------------------------------------------------------

/** One setting: how its value is read from the environment. */
interface Setting<T> {
  readonly read: (env: EnvReader) => T;
}
const setting = <T>(read: (env: EnvReader) => T): Setting<T> => ({ read });

function text(name: string): Setting<string | undefined>;
function text(name: string, fallback: string): Setting<string>;
function text(name: string, fallback?: string): Setting<string | undefined> {
  return setting((env) => env.string(name) ?? fallback);
}

function url(name: string): Setting<string | undefined>;
function url(name: string, fallback: string): Setting<string>;
function url(name: string, fallback?: string): Setting<string | undefined> {
  return setting((env) => env.url(name, fallback));
}

const integer = (name: string, fallback: number, min: number, max: number) =>
  setting((env) => env.integer(name, fallback, min, max));
const flag = (name: string, fallback: boolean) => setting((env) => env.boolean(name, fallback));
const choice = <T extends string>(name: string, values: readonly T[], fallback: T) =>
  setting((env) => env.oneOf(name, values, fallback));
const urlMap = (name: string) => setting((env): Readonly<Record<string, string>> => env.urlMap(name));

// ---- Every setting --------------------------------------------------------------------------

const SETTINGS = {
  server: {
    host: text('HOST', '127.0.0.1'),
    port: integer('PORT', 8000, 0, 65535),
    bodyLimit: integer('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    /** How long a client may take to send a request's headers before it gets 408 and the socket closes (decision 821). */
    headersTimeoutMs: integer('HEADERS_TIMEOUT_MS', 10_000, 100, 300_000),
    /** How long a client may take to send a whole request, body included; a stream's open response is not bound by it. */
    requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
    /**
     * The reverse proxies whose X-Forwarded-For is believed (addresses, CIDRs, or `loopback`,
     * `linklocal`, `uniquelocal`); the client address is then the forwarded one. Empty: the socket's.
     */
    trustProxy: setting((env): readonly string[] => {
      const entries = (env.string('TRUST_PROXY') ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean);
      for (const entry of entries) {
        if (!PROXY_KEYWORDS.includes(entry) && !isIpOrCidr(entry)) {
          env.problems.push(
            `TRUST_PROXY must list IP addresses, CIDRs or ${PROXY_KEYWORDS.join(', ')} (got "${entry}")`,
          );
        }
      }
      return entries;
    }),
  },
  /** Where the embedded database and the secrets kept for you live (absolute). */
  dataDir: setting((env) => path.resolve(env.string('DATA_DIR') ?? './data')),
  databaseUrl: url('DATABASE_URL'),
  redisUrl: url('REDIS_URL'),
  /** Prefix of every Redis key, so that several deployments can share one Redis. */
  redisKeyPrefix: text('REDIS_KEY_PREFIX', 'tp:'),
  /** How long a request may wait on a dependency before it is answered without it (decision 102). */
  resilience: {
    /** Client- and server-side bound of one PostgreSQL statement. */
    databaseQueryTimeoutMs: integer('DATABASE_QUERY_TIMEOUT_MS', 5_000, 100, 600_000),
    /** Bound of opening a PostgreSQL connection. */
    databaseConnectTimeoutMs: integer('DATABASE_CONNECT_TIMEOUT_MS', 3_000, 100, 60_000),
    /** Bound of one Redis command; past it the cache answers from process memory. */
    redisCommandTimeoutMs: integer('REDIS_COMMAND_TIMEOUT_MS', 500, 10, 60_000),
    /** SIGTERM to exit, at most; what is still running then is cut short (decision 104). */
    shutdownTimeoutMs: integer('SHUTDOWN_TIMEOUT_MS', 9_000, 1_000, 120_000),
  },
  logLevel: choice('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  /**
   * The secrets as the environment gives them. One left unset is kept for you in DATA_DIR: the
   * platform resolves them at start (src/platform/crypto/data-dir-secrets.ts).
   */
  secrets: {
    jwtSecret: text('JWT_SECRET'),
    /** The current AES-256-GCM key, 32 bytes. */
    encryptionKey: setting((env) => {
      const value = env.string('ENCRYPTION_KEY');
      return value === undefined ? undefined : env.key('ENCRYPTION_KEY', value);
    }),
    /** Retired keys that stay readable until `rotate-api-keys` has re-encrypted everything. */
    oldEncryptionKeys: setting((env): readonly Buffer[] =>
      (env.string('ENCRYPTION_KEYS_OLD') ?? '')
        .split(',')
        .map((key) => key.trim())
        .filter(Boolean)
        .map((key) => env.key('ENCRYPTION_KEYS_OLD', key)),
    ),
  },
  auth: {
    /** Tokens of an external identity provider (RS256/ES256, keys from its JWKS), when configured. */
    externalTokens: setting(readExternalTokens),
    accessTokenTtlSeconds: integer('ACCESS_TOKEN_TTL_SECONDS', 900, 60, 86_400),
    refreshTokenTtlDays: integer('REFRESH_TOKEN_TTL_DAYS', 30, 1, 365),
    allowSignup: flag('ALLOW_SIGNUP', true),
    /** Sign-ups one client address (an IPv6 /64) may attempt per hour (decision 003). */
    signupLimitPerHour: integer('SIGNUP_LIMIT_PER_HOUR', 10, 1, 100_000),
    /** Lower-cased. */
    adminEmail: setting((env) => env.string('ADMIN_EMAIL')?.toLowerCase()),
    adminPassword: text('ADMIN_PASSWORD'),
    sessionIdleDays: integer('SESSION_IDLE_DAYS', 30, 1, 3650),
    /**
     * REQUIRE_2FA_ROLES: users of these roles without two-factor authentication are refused (403)
     * everywhere but /api/auth/*, where they enroll (decision 142).
     */
    requireTwoFactorRoles: setting((env): readonly string[] => {
      const roles = (env.string('REQUIRE_2FA_ROLES') ?? '')
        .split(',')
        .map((role) => role.trim())
        .filter(Boolean);
      for (const role of roles)
        if (!['user', 'admin'].includes(role))
          env.problems.push(`REQUIRE_2FA_ROLES must list roles among user, admin (got "${role}")`);
      return roles;
    }),
    /** STEP_UP_MAX_AGE_MINUTES: how recent a second factor must be for what moves money (decision 143). */
    stepUpMaxAgeMinutes: integer('STEP_UP_MAX_AGE_MINUTES', 10, 1, 1440),
    webauthn: setting(readWebauthn), // WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME, WEBAUTHN_ORIGINS (decision 204)
  },
  jobs: {
    secret: text('SCHEDULED_JOB_SECRET'),
    scheduler: choice('SCHEDULER', ['off', 'internal'], 'off'),
    /** Job name → UTC cron expression replacing the job's default (SCHEDULER_CRONS). */
    crons: setting(
      (env): Readonly<Record<string, string>> =>
        parseJobCrons('SCHEDULER_CRONS', env.string('SCHEDULER_CRONS'), env.problems, env.known.jobNames),
    ),
    /** Runs of a job kept: started in the last JOB_RUNS_RETENTION_DAYS, at most JOB_RUNS_MAX_PER_JOB (decision 852). */
    runsRetentionDays: integer('JOB_RUNS_RETENTION_DAYS', 90, 1, 3650),
    runsMaxPerJob: integer('JOB_RUNS_MAX_PER_JOB', 10_000, 10, 1_000_000),
    /** Share of each venue's weight budget the sync-accounts job may spend (SYNC_ACCOUNTS_BUDGET_PERCENT). */
    syncAccountsBudgetShare: setting((env) => env.integer('SYNC_ACCOUNTS_BUDGET_PERCENT', 50, 1, 100) / 100),
    /**
     * JOB_TRIGGER_WINDOW_SECONDS: a trigger this soon after a run of the job started is covered by it
     * (docs/decisions/125); undefined → 30 s or half the job's cron period. Capped by the period.
     */
    triggerWindowSeconds: setting((env) =>
      env.string('JOB_TRIGGER_WINDOW_SECONDS') === undefined
        ? undefined
        : env.integer('JOB_TRIGGER_WINDOW_SECONDS', 30, 0, 86_400),
    ),
  },
  /** The request-weight budget every caller of a venue shares (docs/decisions/110). */
  venueBudget: {
    /** Share of the venue's per-minute limit this service allows itself (VENUE_WEIGHT_SHARE_PERCENT). */
    share: setting((env) => env.integer('VENUE_WEIGHT_SHARE_PERCENT', 80, 1, 100) / 100),
    /** How long a call may wait for the next minute before it is refused with 503. */
    maxWaitMs: integer('VENUE_BUDGET_MAX_WAIT_MS', 2_000, 0, 30_000),
    /** Share of the budget's minute one user's calls may take (VENUE_USER_SHARE_PERCENT; decision 200). */
    userShare: setting((env) => env.integer('VENUE_USER_SHARE_PERCENT', 25, 1, 100) / 100),
    /** Names the egress IP: instances with the same id share one budget per venue. Part of cache keys. */
    egress: setting((env) => {
      const raw = env.string('VENUE_EGRESS_ID');
      if (raw === undefined) return 'default';
      if (!/^[A-Za-z0-9._-]{1,64}$/.test(raw)) {
        env.problems.push(
          `VENUE_EGRESS_ID must be 1 to 64 letters, digits, dots, dashes or underscores (got "${raw}")`,
        );
        return 'default';
      }
      return raw;
    }),
  },
  market: {
    source: choice('MARKET_DATA_SOURCE', ['binance', 'simulated'], 'binance'),
    binanceApiUrl: url('BINANCE_API_URL', 'https://api.binance.com'),
    binanceUsApiUrl: url('BINANCEUS_API_URL', 'https://api.binance.us'),
    binanceWsUrl: url('BINANCE_WS_URL', 'wss://stream.binance.com:9443'),
    coingeckoApiUrl: url('COINGECKO_API_URL', 'https://api.coingecko.com/api/v3'),
    coingeckoApiKey: text('COINGECKO_API_KEY'),
    /** Which CoinGecko header carries the key: `x-cg-demo-api-key` or `x-cg-pro-api-key`; by default the URL's plan. */
    coingeckoApiPlan: setting((env) =>
      env.oneOf<'demo' | 'pro'>(
        'COINGECKO_API_PLAN',
        ['demo', 'pro'],
        env.string('COINGECKO_API_URL')?.includes('pro-api.') ? 'pro' : 'demo',
      ),
    ),
    /** Keep a WebSocket subscription to Binance's mini-ticker stream while the server listens. */
    liveStream: flag('MARKET_LIVE_STREAM', true),
    /** Per-call timeout of market-data requests to Binance and CoinGecko. */
    upstreamTimeoutMs: integer('MARKET_UPSTREAM_TIMEOUT_MS', 5000, 100, 60_000),
  },
  paper: {
    /** What a new or reset paper account holds: asset → decimal string (PAPER_START_BALANCES). */
    startBalances: setting((env) => paperBalances(env, 'PAPER_START_BALANCES')),
  },
  /** Server-Sent Event streams (GET /api/v1/market/stream, GET /api/stream); limits are per instance. */
  streams: {
    /** Open streams of every kind this instance serves at once. */
    maxConnections: integer('STREAM_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    /** Open account streams (GET /api/stream) of one user on this instance. */
    maxPerUser: integer('STREAM_MAX_PER_USER', 5, 1, 1_000),
    /** Open price streams (no account) of one client address (an IPv6 /64) on this instance. */
    maxPerAddress: integer('STREAM_MAX_PER_ADDRESS', 20, 1, 100_000),
    /** Bytes written to a subscriber but not yet taken by it; past this the subscriber is dropped. */
    maxBufferBytes: integer('STREAM_MAX_BUFFER_BYTES', 1024 * 1024, 4096, 64 * 1024 * 1024),
    /** Period of the `: ping` comment, ms. */
    pingMs: setting((env) => env.integer('STREAM_PING_SECONDS', 15, 1, 300) * 1000),
    /** The `retry:` the streams announce: how long a client waits before reconnecting. */
    retryMs: integer('STREAM_RETRY_MS', 3000, 100, 600_000),
  },
  exchange: {
    /** ccxt id → base URL override for venues other than binance and binanceus. */
    apiUrls: urlMap('EXCHANGE_API_URLS'),
    /** Venue pacing; `false` lifts it only for a venue at a loopback address (its fake; decision 1041). */
    rateLimit: flag('EXCHANGE_RATE_LIMIT', true),
    /** Timeout of one venue request. */
    timeoutMs: integer('EXCHANGE_TIMEOUT_MS', 10_000, 100, 120_000),
    /** How long one venue may hold up an answer that asks several (route, health, venue info). */
    probeTimeoutMs: integer('EXCHANGE_PROBE_TIMEOUT_MS', 3_000, 100, 60_000),
    /** How far back a market's first trade sync reaches (TRADE_SYNC_HORIZON_DAYS). */
    tradeSyncHorizonDays: integer('TRADE_SYNC_HORIZON_DAYS', 365, 1, 3650),
    /**
     * KRAKEN_CALL_COUNTER `<max>/<decay per second>`: the call counter of the Kraken keys' tier, which the
     * venue budget keeps under (decision 255); Starter's 15/0.33 by default, the lowest tier.
     */
    krakenCounter: setting((env) => {
      const raw = env.string('KRAKEN_CALL_COUNTER') ?? '15/0.33';
      const [max, decay] = raw.split('/').map(Number);
      if (!(max! >= 1 && decay! > 0) || raw.split('/').length !== 2) {
        env.problems.push(`KRAKEN_CALL_COUNTER must be <max>/<decay per second>, e.g. 20/0.5 (got "${raw}")`);
        return { max: 15, decayPerSecond: 0.33 };
      }
      return { max: max!, decayPerSecond: decay! };
    }),
    /** Balance, trade or transfer syncs and key validations one user may ask for per minute, each (decision 200). */
    syncPerUserPerMinute: integer('SYNC_PER_USER_PER_MINUTE', 10, 1, 10_000),
  },
  /** Every user's risk limits until the user changes them (TRADING_*, docs/decisions/218). */
  trading: { limitDefaults: setting(readTradingLimitDefaults) },
  /** Orders (issue 39): live trading's switch and the reconcile pass's period. */
  orders: {
    /** LIVE_TRADING: live orders are refused (403) unless the server says true. */
    liveTrading: flag('LIVE_TRADING', false),
    /** ORDER_RECONCILE_SECONDS: how often every order not final is brought to its venue's state. */
    reconcileSeconds: integer('ORDER_RECONCILE_SECONDS', 30, 1, 3600),
  },
  tracker: {
    backend: choice('TRACKER_BACKEND', ['local', 'linear'], 'local'),
    apiKey: text('TRACKER_API_KEY'),
    apiUrl: url('TRACKER_API_URL', 'https://api.linear.app/graphql'),
    defaultTeamId: text('TRACKER_DEFAULT_TEAM_ID'),
    /** Per-request limit for calls to the tracker API. */
    timeoutMs: integer('TRACKER_TIMEOUT_MS', 10_000, 100, 120_000),
  },
  chat: {
    webhookUrl: url('CHAT_WEBHOOK_URL'),
    format: choice<ChatFormat>('CHAT_WEBHOOK_FORMAT', ['slack', 'discord'], 'slack'),
    timeoutMs: integer('CHAT_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
  },
  mail: {
    smtpUrl: url('SMTP_URL'),
    from: text('MAIL_FROM', 'Trading Platform <no-reply@localhost>'),
  },
  signals: setting(readSignals), // PUBLIC_URL, SIGNAL_*_LIMIT_PER_MINUTE (decision 220)
  notify: setting(readNotify), // TELEGRAM_BOT_TOKEN, TELEGRAM_API_URL, NOTIFY_* (decision 222)
  providers: {
    apiUrls: urlMap('PROVIDER_API_URLS'),
    /** How long a provider key test waits for the provider before calling the key unconfirmed. */
    testTimeoutMs: integer('PROVIDER_TEST_TIMEOUT_MS', 5000, 100, 60_000),
  },
  projectRepo: text('PROJECT_REPO', 'trading-platform/backend'),
  billing: {
    gracePeriodDays: integer('GRACE_PERIOD_DAYS', 7, 0, 365),
    /** ISO 4217 code, upper case: the currency admin stats' `totalRevenue` counts. */
    settlementCurrency: setting((env) => {
      const raw = env.string('SETTLEMENT_CURRENCY') ?? 'USD';
      if (!/^[A-Za-z]{3}$/.test(raw))
        env.problems.push(`SETTLEMENT_CURRENCY must be a three-letter ISO 4217 code (got "${raw}")`);
      return raw.toUpperCase();
    }),
  },
  webhooks: {
    allowUnsigned: flag('WEBHOOKS_ALLOW_UNSIGNED', false),
    /**
     * The webhook providers' secrets by variable: each provider's declaration names its variable, and
     * the entry points pass the declared list in (`known.webhookSecrets`, decision 245).
     */
    secrets: setting(
      (env): Readonly<Record<string, string | undefined>> =>
        Object.fromEntries((env.known.webhookSecrets ?? []).map((variable) => [variable, env.string(variable)])),
    ),
  },
};

/** What a group of settings reads as: each setting's value, groups nested, everything read-only. */
type Shape<S> = S extends Setting<infer T> ? T : { readonly [K in keyof S]: Shape<S[K]> };
export type Config = Shape<typeof SETTINGS>;

function isSetting(value: unknown): value is Setting<unknown> {
  return typeof (value as Setting<unknown>).read === 'function';
}

function readAll(settings: object, env: EnvReader): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(settings).map(([key, value]) => [
      key,
      isSetting(value) ? value.read(env) : readAll(value as object, env),
    ]),
  );
}

/** Rules between settings, which no single setting can check. */
function checkTogether(config: Config, problems: string[]): void {
  const { adminEmail, adminPassword } = config.auth;
  if (Boolean(adminEmail) !== Boolean(adminPassword))
    problems.push('ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
  if (adminPassword !== undefined && adminPassword.length < 8)
    problems.push('ADMIN_PASSWORD must be at least 8 characters');
  if (adminEmail !== undefined && !/^[^@\s]+@[^@\s]+$/.test(adminEmail))
    problems.push(`ADMIN_EMAIL must be an e-mail address (got "${adminEmail}")`);
  if (config.secrets.jwtSecret !== undefined && config.secrets.jwtSecret.length < 32)
    problems.push('JWT_SECRET must be at least 32 characters');
  if (config.tracker.backend === 'linear' && !config.tracker.apiKey)
    problems.push('TRACKER_API_KEY is required when TRACKER_BACKEND=linear');
  // Settings meant for a developer's machine are refused where the server can be reached from elsewhere.
  if (isExposed(config.server.host)) {
    const where = `HOST=${config.server.host} listens beyond this machine`;
    if (config.webhooks.allowUnsigned) problems.push(`WEBHOOKS_ALLOW_UNSIGNED=true is for development only; ${where}`);
    if (config.notify.allowPrivateUrls) problems.push(`NOTIFY_ALLOW_PRIVATE_URLS=true is for tests only; ${where}`);
    const secret = config.jobs.secret;
    if (secret !== undefined && secret.length < MIN_EXPOSED_JOB_SECRET_LENGTH) {
      problems.push(`SCHEDULED_JOB_SECRET must be at least ${MIN_EXPOSED_JOB_SECRET_LENGTH} characters when ${where}`);
    }
  }
  // The local tracker keys teams by UUID, as Linear does.
  const teamId = config.tracker.defaultTeamId;
  if (
    config.tracker.backend === 'local' &&
    teamId !== undefined &&
    !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(teamId)
  ) {
    problems.push('TRACKER_DEFAULT_TEAM_ID must be a UUID when TRACKER_BACKEND=local');
  }
}

export function loadConfig(env: Env = process.env, known: Known = {}): Config {
  const reader = new EnvReader(env, known);
  const config = readAll(SETTINGS, reader) as Config;
  checkTogether(config, reader.problems);
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
