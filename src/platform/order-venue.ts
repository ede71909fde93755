// The one door through which an order reaches a venue (docs/decisions/210): live, the exchange through ccxt;
// paper, the platform's own engine walking the venue's real book. The orders module's state machine talks only
// to this interface, so both modes share one machine: the order row (with its deterministic client order id)
// is committed before `submit`, an answer that does not come is `unknown` and only `lookup` by that client
// order id decides what happened, never a second `submit`. Here, below the modules, so that the orders module
// and each venue's implementation need no value of each other.
import type { DbExecutor } from './db/database.ts';

export type OrderSide = 'buy' | 'sell';
export type OrderType = 'market' | 'limit';
export type TimeInForce = 'GTC' | 'IOC' | 'FOK';
export type OrderMode = 'paper' | 'live';

/**
 * How long after its claim a live send may still be signed (decision 1310). A lookup that finds no order
 * takes it as never received only once the venue's receive window has passed this much later.
 */
export const SIGN_WITHIN_MS = 5_000;

/** The order as it is sent: what was stored before anything left the process. Decimals as strings. */
export interface VenueOrderRequest {
  userId: string;
  /** The ccxt id of the venue, e.g. `binance`. */
  exchange: string;
  /** ccxt's unified symbol, e.g. `BTC/USDT`. */
  symbol: string;
  /** Deterministic and stored first; what the venue receives as its client order id. */
  clientOrderId: string;
  side: OrderSide;
  type: OrderType;
  timeInForce: TimeInForce;
  /** Base units. */
  amount: string;
  /** Limit orders only. */
  price: string | null;
  /** The exchange credential that trades (live only). */
  credentialId: string | null;
  /** The venue's id of the order, once the venue has named it (a lookup or a cancel of a stored order). */
  venueOrderId?: string | null;
  /**
   * When the order was stored, just before its send: where a venue that lists orders only (Coinbase) looks
   * for one it has not named (decision 1290).
   */
  createdAt?: Date;
  /**
   * When its send was claimed (stored `unknown`): a live send is signed within SIGN_WITHIN_MS of it or not
   * at all. Absent or null for a lookup of an order never claimed.
   */
  sentAt?: Date | null;
  /**
   * That credential as the placing request read it, moments before the order was stored (a live send
   * only): the venue sends with it rather than reading the credential once more. Absent (a lookup, a
   * cancel, reconcile), the venue reads the credential as stored now.
   */
  credential?: ResolvedCredential;
}

/** A credential read for an order by the module that owns credentials; opaque to the orders module. */
export interface ResolvedCredential {
  readonly id: string;
  readonly userId: string;
  readonly venue: string;
}

/** One execution, as the venue reports it; stored once under its venue trade id. */
export interface VenueFill {
  /** The venue's trade id: the same `exchange_trade_id` trade sync reads, so a fill is stored once. */
  tradeId: string;
  price: string;
  amount: string;
  fee: string;
  feeCurrency: string | null;
  at: Date;
  maker: boolean;
}

export type VenueOrderStatus = 'open' | 'partially_filled' | 'filled' | 'canceled' | 'expired' | 'rejected';

/** The venue's view of one order. `fills` holds every fill so far; a reader keeps those it has not seen. */
export interface VenueOrderState {
  venueOrderId: string;
  status: VenueOrderStatus;
  /** Base units filled so far. */
  filled: string;
  averagePrice: string | null;
  fills: VenueFill[];
  /** Why the venue rejected or expired it, in its own words. */
  reason?: string;
}

/** The venue answered `submit`: it holds the order (`accepted`) or placed nothing (`refused`). */
export type SubmitResult =
  | { kind: 'accepted'; state: VenueOrderState }
  | { kind: 'refused'; reason: string }
  /** No answer (timeout, reset, a 5xx such as Binance's -1007): look it up, never send it again. */
  | { kind: 'unknown'; reason: string };

export type LookupResult =
  | { kind: 'found'; state: VenueOrderState }
  /** The venue does not know the client order id (final only once its receive window has passed). */
  | { kind: 'not_found' }
  | { kind: 'unknown'; reason: string };

export type CancelResult =
  /** The order is final at the venue now (canceled, or it had filled or expired before the cancel). */
  { kind: 'done'; state: VenueOrderState } | { kind: 'not_found' } | { kind: 'unknown'; reason: string };

/** What settles a prepared order inside the caller's transaction; never `unknown`: a failure throws. */
export type Settle = (executor: DbExecutor) => Promise<Exclude<SubmitResult, { kind: 'unknown' }>>;

/** An order an in-process venue is ready to settle. */
export interface PreparedOrder {
  kind: 'ready';
  settle: Settle;
  /** After the caller's commit, with what `settle` answered: the engine's own follow-up (a resting order's watch). */
  settled(result: SubmitResult): void;
}

export interface OrderVenue {
  submit(order: VenueOrderRequest): Promise<SubmitResult>;
  lookup(order: VenueOrderRequest): Promise<LookupResult>;
  cancel(order: VenueOrderRequest): Promise<CancelResult>;
  /**
   * Only a venue inside this process and its database (the paper engine): nothing is sent anywhere, so
   * the order can be stored, settled and brought to its state in one transaction (decision 270).
   * `prepare` reads what settling needs outside any transaction (the book, the fees) and refuses when
   * it cannot; `settle` then settles in the caller's transaction, and `settled` hears the result after the commit.
   */
  inProcess?: {
    prepare(order: VenueOrderRequest): Promise<{ kind: 'refused'; reason: string } | PreparedOrder>;
  };
}
