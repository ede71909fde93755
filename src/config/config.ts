// The one reader of process.env. Everything else receives a frozen Config.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseJobCrons } from './job-schedules.ts';

export type ChatFormat = 'slack' | 'discord';

export interface ExternalTokenSettings {
  readonly jwksUrl: string;
  /** The `iss` every accepted token must carry. */
  readonly issuer: string;
  /** The `aud` every accepted token must carry, when set. */
  readonly audience: string | undefined;
}

export interface Config {
  readonly server: { readonly host: string; readonly port: number; readonly bodyLimit: number };
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly redisUrl: string | undefined;
  /** Prefix of every Redis key, so that several deployments can share one Redis. */
  readonly redisKeyPrefix: string;
  readonly logLevel: string;
  readonly auth: {
    readonly jwtSecret: string;
    /** Tokens of an external identity provider (RS256/ES256, keys from its JWKS), when configured. */
    readonly externalTokens: ExternalTokenSettings | undefined;
    readonly accessTokenTtlSeconds: number;
    readonly refreshTokenTtlDays: number;
    readonly allowSignup: boolean;
    readonly adminEmail: string | undefined;
    readonly adminPassword: string | undefined;
    readonly sessionIdleDays: number;
  };
  /** Where JWT_SECRET and ENCRYPTION_KEY came from: the environment, a file in DATA_DIR, or made now. */
  readonly secretSources: Readonly<Record<GeneratedSecret, SecretSource>>;
  readonly crypto: {
    /** Current AES-256-GCM key, 32 bytes. */
    readonly encryptionKey: Buffer;
    /** Retired keys that stay readable until `rotate-api-keys` has re-encrypted everything. */
    readonly oldEncryptionKeys: readonly Buffer[];
  };
  readonly jobs: {
    readonly secret: string | undefined;
    readonly scheduler: 'off' | 'internal';
    /** Job name → UTC cron expression replacing the job's default (SCHEDULER_CRONS). */
    readonly crons: Readonly<Record<string, string>>;
    /** Share of each venue's weight budget the sync-accounts job may spend (SYNC_ACCOUNTS_BUDGET_PERCENT). */
    readonly syncAccountsBudgetShare: number;
  };
  /** The request-weight budget every caller of a venue shares (docs/decisions/110). */
  readonly venueBudget: {
    /** Share of the venue's per-minute limit this service allows itself (VENUE_WEIGHT_SHARE_PERCENT). */
    readonly share: number;
    /** How long a call may wait for the next minute before it is refused with 503. */
    readonly maxWaitMs: number;
    /** Names the egress IP: instances with the same id share one budget per venue. */
    readonly egress: string;
  };
  readonly market: {
    readonly source: 'binance' | 'simulated';
    readonly binanceApiUrl: string;
    readonly binanceUsApiUrl: string;
    readonly binanceWsUrl: string;
    readonly coingeckoApiUrl: string;
    readonly coingeckoApiKey: string | undefined;
    /** Which CoinGecko header carries the key: `x-cg-demo-api-key` or `x-cg-pro-api-key`. */
    readonly coingeckoApiPlan: 'demo' | 'pro';
    /** Keep a WebSocket subscription to Binance's mini-ticker stream while the server listens. */
    readonly liveStream: boolean;
    /** Per-call timeout of market-data requests to Binance and CoinGecko. */
    readonly upstreamTimeoutMs: number;
  };
  readonly exchange: {
    /** ccxt id → base URL override for venues other than binance and binanceus. */
    readonly apiUrls: Readonly<Record<string, string>>;
    /** ccxt's own request throttling; on in production, tests switch it off. */
    readonly rateLimit: boolean;
    /** Timeout of one venue request. */
    readonly timeoutMs: number;
    /** How long one venue may hold up an answer that asks several (route, health, venue info). */
    readonly probeTimeoutMs: number;
    /** How far back a market's first trade sync reaches (TRADE_SYNC_HORIZON_DAYS). */
    readonly tradeSyncHorizonDays: number;
  };
  readonly tracker: {
    readonly backend: 'local' | 'linear';
    readonly apiKey: string | undefined;
    readonly apiUrl: string;
    readonly defaultTeamId: string | undefined;
    /** Per-request limit for calls to the tracker API. */
    readonly timeoutMs: number;
  };
  readonly chat: { readonly webhookUrl: string | undefined; readonly format: ChatFormat; readonly timeoutMs: number };
  readonly mail: { readonly smtpUrl: string | undefined; readonly from: string };
  readonly providers: {
    readonly apiUrls: Readonly<Record<string, string>>;
    /** How long a provider key test waits for the provider before calling the key unconfirmed. */
    readonly testTimeoutMs: number;
  };
  readonly projectRepo: string;
  readonly billing: {
    readonly gracePeriodDays: number;
    /** ISO 4217 code, upper case: the currency admin stats' `totalRevenue` counts. */
    readonly settlementCurrency: string;
  };
  readonly webhooks: {
    readonly allowUnsigned: boolean;
    readonly secrets: Readonly<Record<WebhookProvider, string | undefined>>;
  };
}

export type GeneratedSecret = 'JWT_SECRET' | 'ENCRYPTION_KEY';
export type SecretSource = 'environment' | 'file' | 'generated';

export const WEBHOOK_PROVIDERS = [
  'codehost',
  'payments',
  'edge',
  'tracker',
  'errormon',
  'database',
  'authprovider',
  'mailer',
] as const;
export type WebhookProvider = (typeof WEBHOOK_PROVIDERS)[number];

const WEBHOOK_SECRET_VARS: Record<WebhookProvider, string> = {
  codehost: 'CODEHOST_WEBHOOK_SECRET',
  payments: 'PAYMENTS_WEBHOOK_SECRET',
  edge: 'EDGE_WEBHOOK_SECRET',
  tracker: 'TRACKER_WEBHOOK_SECRET',
  errormon: 'ERRORMON_WEBHOOK_SECRET',
  database: 'DATABASE_WEBHOOK_SECRET',
  authprovider: 'AUTHPROVIDER_HOOK_SECRET',
  mailer: 'MAILER_WEBHOOK_SECRET',
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** Collects every problem instead of stopping at the first, so one start lists them all. */
class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  string(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value ? value : undefined;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.string(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    this.problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if ((values as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name} must be one of ${values.join(', ')} (got "${raw}")`);
    return fallback;
  }

  url(name: string, fallback?: string): string | undefined {
    const raw = this.string(name) ?? fallback;
    if (raw === undefined) return undefined;
    if (!isUrl(raw)) this.problems.push(`${name} must be an absolute URL`);
    return raw.replace(/\/+$/, '');
  }

  urlMap(name: string): Record<string, string> {
    const raw = this.string(name);
    if (raw === undefined) return {};
    try {
      const parsed: unknown = JSON.parse(raw);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      const entries = Object.entries(parsed as Record<string, unknown>);
      for (const [key, value] of entries) {
        if (typeof value !== 'string' || !isUrl(value)) {
          this.problems.push(`${name}.${key} must be an absolute URL`);
        }
      }
      return Object.fromEntries(entries.map(([k, v]) => [k, String(v).replace(/\/+$/, '')]));
    } catch {
      this.problems.push(`${name} must be a JSON object mapping names to URLs`);
      return {};
    }
  }

  key(name: string, value: string): Buffer {
    const key = Buffer.from(value, 'base64');
    if (key.length !== 32) this.problems.push(`${name} must be 32 bytes encoded as base64`);
    return key;
  }
}

/** VENUE_EGRESS_ID becomes part of cache keys: letters, digits, dot, dash and underscore only. */
function egressId(read: EnvReader): string {
  const raw = read.string('VENUE_EGRESS_ID');
  if (raw === undefined) return 'default';
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(raw)) {
    read.problems.push(`VENUE_EGRESS_ID must be 1 to 64 letters, digits, dots, dashes or underscores (got "${raw}")`);
    return 'default';
  }
  return raw;
}

function isUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return ['http:', 'https:', 'ws:', 'wss:', 'smtp:', 'smtps:', 'redis:', 'rediss:', 'postgres:', 'postgresql:'].includes(url.protocol);
  } catch {
    return false;
  }
}

/**
 * An external identity provider's tokens are accepted only with a known issuer, else any token
 * signed by a shared provider (every tenant of it) would do. Supabase-style JWKS URLs
 * (`<issuer>/.well-known/jwks.json`) give the issuer; other providers must name it.
 */
function externalTokenSettings(read: EnvReader): ExternalTokenSettings | undefined {
  const jwksUrl = read.url('JWT_JWKS_URL');
  const audience = read.string('JWT_JWKS_AUDIENCE');
  let issuer = read.string('JWT_JWKS_ISSUER');
  if (!jwksUrl) {
    if (issuer || audience) read.problems.push('JWT_JWKS_ISSUER and JWT_JWKS_AUDIENCE need JWT_JWKS_URL');
    return undefined;
  }
  const suffix = '/.well-known/jwks.json';
  if (!issuer && jwksUrl.endsWith(suffix)) issuer = jwksUrl.slice(0, -suffix.length);
  if (!issuer) {
    read.problems.push('JWT_JWKS_ISSUER must be set with JWT_JWKS_URL (the issuer could not be derived from the URL)');
    return undefined;
  }
  return { jwksUrl, issuer, audience };
}

/**
 * A secret that must survive restarts but need not be configured: generated once into DATA_DIR,
 * readable by the service's user only. Written under a temporary name and linked into place, so
 * two processes starting together agree on one value and never read a half-written file.
 */
function persistentSecret(
  read: EnvReader,
  variable: GeneratedSecret,
  dataDir: string,
  file: string,
  generate: () => string,
  sources: Record<GeneratedSecret, SecretSource>,
): string {
  const configured = read.string(variable);
  if (configured !== undefined) return configured;
  const location = path.join(dataDir, file);
  sources[variable] = 'file';
  try {
    if (!existsSync(location)) {
      sources[variable] = 'generated';
      mkdirSync(dataDir, { recursive: true });
      const temporary = `${location}.${process.pid}.${randomBytes(4).toString('hex')}`;
      writeFileSync(temporary, `${generate()}\n`, { mode: 0o600, flag: 'wx' });
      try {
        linkSync(temporary, location);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      } finally {
        unlinkSync(temporary);
      }
    }
    return readFileSync(location, 'utf8').trim();
  } catch (error) {
    read.problems.push(`${variable} is unset and ${location} cannot be created or read (${(error as Error).message})`);
    return '';
  }
}

function settlementCurrency(read: EnvReader): string {
  const raw = read.string('SETTLEMENT_CURRENCY') ?? 'USD';
  if (!/^[A-Za-z]{3}$/.test(raw)) read.problems.push(`SETTLEMENT_CURRENCY must be a three-letter ISO 4217 code (got "${raw}")`);
  return raw.toUpperCase();
}

export function loadConfig(env: Env = process.env): Config {
  const read = new EnvReader(env);
  const dataDir = path.resolve(read.string('DATA_DIR') ?? './data');

  const secretSources: Record<GeneratedSecret, SecretSource> = { JWT_SECRET: 'environment', ENCRYPTION_KEY: 'environment' };
  const jwtSecret = persistentSecret(read, 'JWT_SECRET', dataDir, 'jwt-secret', () => randomBytes(48).toString('base64url'), secretSources);
  const encryptionKeyText = persistentSecret(read, 'ENCRYPTION_KEY', dataDir, 'encryption-key', () => randomBytes(32).toString('base64'), secretSources);
  // An empty value means DATA_DIR could not hold it, which is already reported.
  if (jwtSecret && jwtSecret.length < 32) read.problems.push('JWT_SECRET must be at least 32 characters');
  const encryptionKey = encryptionKeyText ? read.key('ENCRYPTION_KEY', encryptionKeyText) : Buffer.alloc(32);
  const oldEncryptionKeys = (read.string('ENCRYPTION_KEYS_OLD') ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => read.key('ENCRYPTION_KEYS_OLD', k));

  const adminEmail = read.string('ADMIN_EMAIL');
  const adminPassword = read.string('ADMIN_PASSWORD');
  if (Boolean(adminEmail) !== Boolean(adminPassword)) {
    read.problems.push('ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
  }
  if (adminPassword !== undefined && adminPassword.length < 8) {
    read.problems.push('ADMIN_PASSWORD must be at least 8 characters');
  }
  if (adminEmail !== undefined && !/^[^@\s]+@[^@\s]+$/.test(adminEmail)) {
    read.problems.push(`ADMIN_EMAIL must be an e-mail address (got "${adminEmail}")`);
  }

  const coingeckoApiUrl = read.url('COINGECKO_API_URL', 'https://api.coingecko.com/api/v3')!;

  const config: Config = {
    server: {
      host: read.string('HOST') ?? '127.0.0.1',
      port: read.integer('PORT', 8000, 0, 65535),
      bodyLimit: read.integer('BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    },
    dataDir,
    secretSources,
    databaseUrl: read.url('DATABASE_URL'),
    redisUrl: read.url('REDIS_URL'),
    redisKeyPrefix: read.string('REDIS_KEY_PREFIX') ?? 'tp:',
    logLevel: read.oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    auth: {
      jwtSecret,
      externalTokens: externalTokenSettings(read),
      accessTokenTtlSeconds: read.integer('ACCESS_TOKEN_TTL_SECONDS', 900, 60, 86_400),
      refreshTokenTtlDays: read.integer('REFRESH_TOKEN_TTL_DAYS', 30, 1, 365),
      allowSignup: read.boolean('ALLOW_SIGNUP', true),
      adminEmail: adminEmail?.toLowerCase(),
      adminPassword,
      sessionIdleDays: read.integer('SESSION_IDLE_DAYS', 30, 1, 3650),
    },
    crypto: { encryptionKey, oldEncryptionKeys },
    jobs: {
      secret: read.string('SCHEDULED_JOB_SECRET'),
      scheduler: read.oneOf('SCHEDULER', ['off', 'internal'], 'off'),
      crons: parseJobCrons('SCHEDULER_CRONS', read.string('SCHEDULER_CRONS'), read.problems),
      syncAccountsBudgetShare: read.integer('SYNC_ACCOUNTS_BUDGET_PERCENT', 50, 1, 100) / 100,
    },
    venueBudget: {
      share: read.integer('VENUE_WEIGHT_SHARE_PERCENT', 80, 1, 100) / 100,
      maxWaitMs: read.integer('VENUE_BUDGET_MAX_WAIT_MS', 2_000, 0, 30_000),
      egress: egressId(read),
    },
    market: {
      source: read.oneOf('MARKET_DATA_SOURCE', ['binance', 'simulated'], 'binance'),
      binanceApiUrl: read.url('BINANCE_API_URL', 'https://api.binance.com')!,
      binanceUsApiUrl: read.url('BINANCEUS_API_URL', 'https://api.binance.us')!,
      binanceWsUrl: read.url('BINANCE_WS_URL', 'wss://stream.binance.com:9443')!,
      coingeckoApiUrl,
      coingeckoApiKey: read.string('COINGECKO_API_KEY'),
      coingeckoApiPlan: read.oneOf('COINGECKO_API_PLAN', ['demo', 'pro'], coingeckoApiUrl.includes('pro-api.') ? 'pro' : 'demo'),
      liveStream: read.boolean('MARKET_LIVE_STREAM', true),
      upstreamTimeoutMs: read.integer('MARKET_UPSTREAM_TIMEOUT_MS', 5000, 100, 60_000),
    },
    exchange: {
      apiUrls: read.urlMap('EXCHANGE_API_URLS'),
      rateLimit: read.boolean('EXCHANGE_RATE_LIMIT', true),
      timeoutMs: read.integer('EXCHANGE_TIMEOUT_MS', 10_000, 100, 120_000),
      probeTimeoutMs: read.integer('EXCHANGE_PROBE_TIMEOUT_MS', 3_000, 100, 60_000),
      tradeSyncHorizonDays: read.integer('TRADE_SYNC_HORIZON_DAYS', 365, 1, 3650),
    },
    tracker: {
      backend: read.oneOf('TRACKER_BACKEND', ['local', 'linear'], 'local'),
      apiKey: read.string('TRACKER_API_KEY'),
      apiUrl: read.url('TRACKER_API_URL', 'https://api.linear.app/graphql')!,
      defaultTeamId: read.string('TRACKER_DEFAULT_TEAM_ID'),
      timeoutMs: read.integer('TRACKER_TIMEOUT_MS', 10_000, 100, 120_000),
    },
    chat: {
      webhookUrl: read.url('CHAT_WEBHOOK_URL'),
      format: read.oneOf('CHAT_WEBHOOK_FORMAT', ['slack', 'discord'], 'slack'),
      timeoutMs: read.integer('CHAT_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    },
    mail: {
      smtpUrl: read.url('SMTP_URL'),
      from: read.string('MAIL_FROM') ?? 'Trading Platform <no-reply@localhost>',
    },
    providers: {
      apiUrls: read.urlMap('PROVIDER_API_URLS'),
      testTimeoutMs: read.integer('PROVIDER_TEST_TIMEOUT_MS', 5000, 100, 60_000),
    },
    projectRepo: read.string('PROJECT_REPO') ?? 'trading-platform/backend',
    billing: { gracePeriodDays: read.integer('GRACE_PERIOD_DAYS', 7, 0, 365), settlementCurrency: settlementCurrency(read) },
    webhooks: {
      allowUnsigned: read.boolean('WEBHOOKS_ALLOW_UNSIGNED', false),
      secrets: Object.fromEntries(
        Object.entries(WEBHOOK_SECRET_VARS).map(([provider, variable]) => [provider, read.string(variable)]),
      ) as Record<WebhookProvider, string | undefined>,
    },
  };

  if (config.tracker.backend === 'linear' && !config.tracker.apiKey) {
    read.problems.push('TRACKER_API_KEY is required when TRACKER_BACKEND=linear');
  }
  // The local tracker keys teams by UUID, as Linear does.
  const teamId = config.tracker.defaultTeamId;
  if (config.tracker.backend === 'local' && teamId !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(teamId)) {
    read.problems.push('TRACKER_DEFAULT_TEAM_ID must be a UUID when TRACKER_BACKEND=local');
  }
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
