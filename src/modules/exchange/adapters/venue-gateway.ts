// What the exchange module needs from a trading venue, independent of the client library. The one
// implementation is ccxt (`CcxtVenueGateway`); every library error leaves it as a `VenueError`.
import { AppError, type DependencyOutage, type ErrorCode } from '../../../platform/http/errors.ts';
import type { BinanceVenue, Venue } from '../venues.domain.ts';

export interface VenueCredentials {
  apiKey: string;
  secret: string;
  passphrase?: string | null;
  /**
   * The user whose call this is: charged to that user's share of the venue's weight budget
   * (decision 200). Absent for the platform's own calls, which only the venue's budget bounds.
   */
  owner?: string;
}

export interface CallOptions {
  /** Bound on one request to the venue; the configured timeout when absent. */
  timeoutMs?: number;
  /**
   * The signed-in user a read without credentials is made for: its requests are charged to that user's
   * share of the venue's budget too (decision 740). Absent: the platform's own call.
   */
  user?: string;
}

export interface VenueDescription {
  id: Venue;
  name: string;
  requiresPassphrase: boolean;
  /** The ccxt capabilities we expose, `emulated` counting as supported. */
  capabilities: Record<string, boolean>;
  countries: string[];
  /** Milliseconds between requests that ccxt's throttle keeps to. */
  rateLimitMs: number;
  fees: { maker: number | null; taker: number | null; percentage: boolean | null; tierBased: boolean | null };
  urls: { www: string | null; doc: string[]; fees: string | null };
}

export interface VenueMarket {
  symbol: string;
  id: string;
  base: string;
  quote: string;
  active: boolean;
  /** LOT_SIZE minimum quantity on Binance. */
  minAmount: number | null;
  maxAmount: number | null;
  /** NOTIONAL / MIN_NOTIONAL minimum on Binance. */
  minCost: number | null;
  pricePrecision: number | null;
  amountPrecision: number | null;
  maker: number | null;
  taker: number | null;
}

export interface VenueTicker {
  symbol: string;
  last: number | null;
  bid: number | null;
  ask: number | null;
  high: number | null;
  low: number | null;
  open: number | null;
  close: number | null;
  change: number | null;
  percentage: number | null;
  baseVolume: number | null;
  quoteVolume: number | null;
  vwap: number | null;
  timestamp: number | null;
}

/** Exact decimal strings, as the venue sent them. */
export interface VenueBalance {
  currency: string;
  free: string;
  locked: string;
  total: string;
}

/** Fields stay null when the venue did not send them; such a trade is stored as `failed`. */
export interface VenueTrade {
  id: string | null;
  symbol: string;
  side: 'buy' | 'sell' | null;
  price: string | null;
  amount: string | null;
  cost: string | null;
  fee: string | null;
  feeCurrency: string | null;
  timestamp: number | null;
}

/** A deposit or withdrawal as the venue reports it; `fee` is charged on top of `amount`. */
export interface VenueTransfer {
  id: string | null;
  currency: string | null;
  amount: string | null;
  fee: string | null;
  txid: string | null;
  /** ccxt's: ok, pending, failed, canceled. */
  status: string | null;
  timestamp: number | null;
}

/** Where a page of fills starts: `fromId` (Binance: trades with id ≥ it) or `since` (ms), and its size. */
export interface TradePage {
  fromId?: string;
  since?: number;
  limit: number;
  /**
   * Ids of trades at `since` already stored: the boundary trades a `since` page answers again, skipped
   * and not counted toward `limit`, so that more than `limit` trades in one millisecond cannot stall the
   * sync on the same page (docs/decisions/891).
   */
  known?: readonly string[];
}

export interface KeyPermissions {
  read: boolean;
  trade: boolean;
  withdraw: boolean;
}

/** What a key may do, as far as the venue tells; null fields when it does not say. */
export interface KeyScope {
  permissions: KeyPermissions | null;
  ipRestricted: boolean | null;
  /** Where the answer came from, e.g. `apiRestrictions` or `account`. */
  source: string | null;
}

export interface VenueStatus {
  status: 'ok' | 'maintenance' | 'shutdown' | 'error';
  latencyMs: number;
}

export interface FeeTokenBurn {
  spot: boolean;
  interest: boolean | null;
}

export interface DustAsset {
  asset: string;
  name: string | null;
  free: string;
  toBtc: string | null;
  toFeeToken: string | null;
  toFeeTokenAfterFee: string | null;
  fee: string | null;
  usdValue: string | null;
}

export interface DustAssets {
  assets: DustAsset[];
  totalBtc: string | null;
  totalFeeToken: string | null;
  feeRate: string | null;
}

export interface VenueGateway {
  /**
   * What a first call does before it asks the venue (loading the venue library, building the venue's
   * client): done once. A bound meant for the venue's answer starts after it (decision 700). With a
   * `timeoutMs`, also what `status` with that timeout needs before it asks (its kept instance, decision 800).
   */
  ready(venue: Venue, options?: Pick<CallOptions, 'timeoutMs'>): Promise<void>;
  describe(venue: Venue): Promise<VenueDescription>;
  markets(venue: Venue, options?: CallOptions): Promise<VenueMarket[]>;
  tickers(venue: Venue, symbols: string[], options?: CallOptions): Promise<VenueTicker[]>;
  status(venue: Venue, options?: CallOptions): Promise<VenueStatus>;
  balance(venue: Venue, credentials: VenueCredentials): Promise<VenueBalance[]>;
  /** A balance call with the key (proving it reads), plus what the venue says the key may do. */
  keyCheck(venue: Venue, credentials: VenueCredentials): Promise<{ currencies: number; scope: KeyScope }>;
  /** One page of the key's fills on a market, oldest first: from a venue trade id (Binance) or from an instant. */
  myTrades(venue: Venue, credentials: VenueCredentials, symbol: string, page: TradePage): Promise<VenueTrade[]>;
  /** The key's deposits or withdrawals in [since, until] (ms; Binance: at most 90 days apart), at most `limit`. */
  transfers(
    venue: Venue,
    credentials: VenueCredentials,
    type: 'deposit' | 'withdrawal',
    window: { since: number; until: number; limit: number },
  ): Promise<VenueTransfer[]>;
  feeTokenBurn(venue: BinanceVenue, credentials: VenueCredentials): Promise<FeeTokenBurn>;
  setFeeTokenBurn(venue: BinanceVenue, credentials: VenueCredentials, spot: boolean): Promise<FeeTokenBurn>;
  dustAssets(venue: BinanceVenue, credentials: VenueCredentials): Promise<DustAssets>;
}

/** Why a venue call failed, finer than the HTTP status. */
export type VenueFailure =
  | 'invalid_key'
  | 'ip_not_whitelisted'
  | 'missing_permission'
  | 'rate_limited'
  | 'ip_banned'
  | 'unreachable'
  | 'timeout'
  | 'maintenance'
  | 'clock_skew'
  | 'bad_symbol'
  | 'not_supported'
  | 'rejected';

/** The contract's `error_type` of a failed sync. */
type VenueErrorType = 'auth' | 'rate_limit' | 'network' | 'exchange';

const FAILURES: Record<VenueFailure, { code: ErrorCode; type: VenueErrorType }> = {
  invalid_key: { code: 'bad_request', type: 'auth' },
  ip_not_whitelisted: { code: 'forbidden', type: 'auth' },
  missing_permission: { code: 'forbidden', type: 'auth' },
  rate_limited: { code: 'rate_limited', type: 'rate_limit' },
  ip_banned: { code: 'unavailable', type: 'rate_limit' },
  unreachable: { code: 'upstream_error', type: 'network' },
  timeout: { code: 'upstream_timeout', type: 'network' },
  maintenance: { code: 'unavailable', type: 'network' },
  clock_skew: { code: 'upstream_error', type: 'exchange' },
  bad_symbol: { code: 'not_found', type: 'exchange' },
  not_supported: { code: 'bad_request', type: 'exchange' },
  rejected: { code: 'upstream_error', type: 'exchange' },
};

export class VenueError extends AppError {
  readonly errorType: VenueErrorType;

  constructor(
    readonly venue: string,
    readonly failure: VenueFailure,
    detail: string,
    options: { retryAfterSeconds?: number; cause?: unknown; outage?: DependencyOutage } = {},
  ) {
    const { code, type } = FAILURES[failure];
    const headers: Record<string, string> = {};
    if (options.retryAfterSeconds !== undefined)
      headers['retry-after'] = String(Math.max(1, Math.ceil(options.retryAfterSeconds)));
    super(code, detail, { headers, cause: options.cause, ...(options.outage ? { outage: options.outage } : {}) });
    this.name = 'VenueError';
    this.errorType = type;
  }

  get retryAfterSeconds(): number | undefined {
    const value = this.headers['retry-after'];
    return value === undefined ? undefined : Number(value);
  }
}
