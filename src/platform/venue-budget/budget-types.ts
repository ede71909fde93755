// The venue budget's shapes: what a budget reports and what its callers may ask of it (decisions 110,
// 200, 255, 280, 281). The implementation is venue-budget.ts.
import type { BudgetRefusal } from './budget-refusals.ts';
import type { VenueWeights } from './guarded-fetch.ts';
import type { KeyLimit, VenueKeyLimits } from './key-limits.ts';

export interface BreakerState {
  until: number;
  reason: string;
  /** The venue's 429 or 418; null when failures in a row opened it. */
  status: number | null;
}

export interface BudgetState {
  venue: string;
  /** Weight used in the current minute, as far as this service knows (ours and the venue's count). */
  usedWeight1m: number;
  limit1m: number;
  /** The part of the limit calls are admitted to: floor(limit × share). */
  cap1m: number;
  share: number;
  /** Whether the limit came from the venue (exchangeInfo) or is the documented default. */
  limitSource: 'venue' | 'default';
  /** Whether the venue's request weights are modelled (else only its breaker applies). */
  modelled: boolean;
  breaker: BreakerState | null;
  /** Failed calls reported since the last success, on this instance. */
  consecutiveFailures: number;
  /** Where the counts live: `shared` (Redis) or `local` (this instance only). */
  scope: 'shared' | 'local';
}

/** How a venue is named in answers, and its request weights when they are modelled. */
export interface VenueProfile {
  readonly label: string;
  readonly weights?: VenueWeights;
  /** The limits the venue keeps per key and endpoint (decision 255), when modelled. */
  readonly keyLimits?: VenueKeyLimits;
  /**
   * The longest a signed request may wait for the budget before it leaves: the budget's waits come after
   * ccxt has signed it, and the venue refuses it once its receive window has passed (decision 1330).
   */
  readonly signedWaitMs?: number;
}

export interface VenueBudget {
  readonly venue: string;
  /** The name answers use, e.g. Binance. */
  readonly label: string;
  /** The venue's weights as its adapter code declared them; undefined when not modelled. */
  readonly weights: VenueWeights | undefined;
  /** The venue's per-key limits as its adapter code declared them. */
  readonly keyLimits: VenueKeyLimits | undefined;
  /** The longest a signed request may wait for the budget (VenueProfile.signedWaitMs). */
  readonly signedWaitMs: number | undefined;
  /**
   * Draws a call on its key's counters (decision 255): waits a bounded time (`maxWaitMs` when the call allows
   * less than the budget's longest) or throws a KeyLimitRefusal (429). Comes after the same call's
   * `acquire`, which answered the venue's breaker: it does not read it again.
   */
  acquireKey(key: string, limits: readonly KeyLimit[], maxWaitMs?: number): Promise<void>;
  /** A call that never reached the venue gives its key's draws back. */
  releaseKey(key: string, limits: readonly KeyLimit[]): Promise<void>;
  /** The venue answered that the key is over its limit: its counters are full. */
  fillKey(key: string, limits: readonly KeyLimit[]): Promise<void>;
  /**
   * Runs a call in the key's turn, one at a time across instances, with a number greater than any given
   * before for the key (Kraken's nonce, decision 280); `callMs` bounds the call. Refuses unsent (429) when
   * the turn does not come within one call's longest time, or within `maxWaitMs` when that is shorter.
   */
  inTurn<T>(key: string, callMs: number, work: (sequence: number) => Promise<T>, maxWaitMs?: number): Promise<T>;
  /** The venue account the key belongs to, as the venue said (decision 281); undefined until asked. */
  keyAccount(key: string): Promise<string | undefined>;
  /** The venue said `key` belongs to `account`: limits counted per account count the key there. */
  learnKeyAccount(key: string, account: string): Promise<void>;
  /** The venue's adapter code tells its name and weights, once, before calls are made. */
  describe(profile: VenueProfile): void;
  /**
   * Charges `weight` before a call; waits a bounded time or throws a BudgetRefusal (503). With `user`
   * (whose call it is: a user id, or any stable key of one party), the call is charged to that user's
   * share of the minute too, and a user over it gets a UserShareRefusal (429) while others go on.
   * `maxWaitMs` bounds its waits together when the call allows less than the budget's longest.
   */
  acquire(weight: number, user?: string, maxWaitMs?: number): Promise<void>;
  /** A call that never reached the venue cost nothing (to the user it was charged to, too). */
  release(weight: number, user?: string): Promise<void>;
  /**
   * The venue's own count after a call (X-MBX-USED-WEIGHT-1M); only ever raises ours. This instance's view
   * (`snapshot`) holds it when the call returns; the shared count's raise is sent then and may be awaited.
   */
  settle(usedWeight: number): Promise<void>;
  /** A 429 or 418: stop every call to the venue, on every instance, for retryAfterMs. */
  trip(status: number, retryAfterMs: number): Promise<void>;
  /** A call failed at the venue (unreachable, 5xx, an answer of the wrong shape); enough in a row open the breaker. */
  failed(): Promise<void>;
  /** A call succeeded: the failures in a row start again from zero. */
  succeeded(): void;
  /** The refusal an open breaker answers with, as this instance last saw it (no round trip); null when closed. */
  refusal(): BudgetRefusal | null;
  /** The venue told its limit (exchangeInfo rateLimits). */
  setLimit(limit: number): void;
  /** The last state this instance saw, without a round trip (for synchronous reports). */
  snapshot(): BudgetState;
  /** The current state, read from the shared counts. */
  state(): Promise<BudgetState>;
}

/** How the venue budgets are set (config.venueBudget). */
export interface VenueBudgetSettings {
  /** Share of the venue's limit this service allows itself (VENUE_WEIGHT_SHARE). */
  readonly share: number;
  /** Longest a call waits for the next minute before it is refused (VENUE_BUDGET_MAX_WAIT_MS). */
  readonly maxWaitMs: number;
  /** Which egress IP the instances share (VENUE_EGRESS_ID): instances behind one IP share one budget. */
  readonly egress: string;
  /** Share of the cap one user's calls may take in a minute (VENUE_USER_SHARE_PERCENT); 1 when absent. */
  readonly userShare?: number;
  /**
   * How long the shared store may take before this instance counts alone (REDIS_COMMAND_TIMEOUT_MS,
   * the cache's own bound); 500 ms when absent. Shorter than the cache's bound, it would count alone
   * while Redis still answers, and admit a call the shared count had refused.
   */
  readonly sharedTimeoutMs?: number;
}
