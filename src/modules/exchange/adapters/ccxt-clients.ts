// ccxt instances, configured in one place: base-URL overrides, spot-only market loading for the
// Binance venues, the shared market cache, one throttle and one clock offset per venue.
//
// One "template" instance per venue and process holds the markets (loaded once an hour through the
// platform cache, so Redis shares them between processes) and the throttle. A call with credentials
// gets a fresh instance that borrows both, so its state (credentials, last response headers) is never
// shared with another user's request; calls without credentials (markets, tickers) share one kept
// instance per venue and timeout, rebuilt with the markets (decision 375).
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { Exchange } from 'ccxt';
import type { Cache } from '../../../platform/cache/cache.ts';
import type { GuardedFetch } from '../../../platform/venue-budget/guarded-fetch.ts';
import type { VenueBudget } from '../../../platform/venue-budget/venue-budget.ts';
import type { Egress, VenueEgress } from '../../../platform/venue-budget/egress.ts';
import { MARKETS_TTL_MS, type Venue } from '../venues.domain.ts';
import { noteAnswerStatus, refuseBodiesNotJson, type CcxtErrorClasses } from './ccxt-errors.ts';
import { type CcxtHmac, nodeHmac } from './ccxt-hmac.ts';
import type { VenueCredentials } from './venue-gateway.ts';
import { rewriteUrls, urlRewriter, type VenueUrlSettings } from './ccxt-urls.ts';
import { holdKeyCalls } from './venue-key-calls.ts';
import { holdSigningDeadlines } from './signing-deadline.ts';
import { SIGN_WITHIN_MS } from '../../../platform/order-venue.ts';

export type CcxtModule = typeof import('ccxt');
type ExchangeClass = new (config?: Record<string, unknown>) => Exchange;

let ccxtModule: Promise<CcxtModule> | undefined;
let lastTurn: Promise<void> = Promise.resolve();

/**
 * A ccxt constructor is 5-60 ms of synchronous work, and an answer that asks every venue makes ten at
 * once: each waits for a turn of the event loop of its own, so that together they never hold it
 * (decision 199). Immediates queued together run in one turn; chained, each gets the next.
 */
function ownTurn(): Promise<void> {
  const turn = lastTurn.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  lastTurn = turn;
  return turn;
}

/**
 * ccxt's import: about half a second of one synchronous block of the event loop on a quiet machine,
 * seconds on a busy one, and 90 MiB of RSS; done once, on first use (decision 700).
 */
export function loadCcxt(): Promise<CcxtModule> {
  ccxtModule ??= import('ccxt');
  return ccxtModule;
}

export interface CcxtClientSettings extends VenueUrlSettings {
  /**
   * ccxt's own throttle, for a venue without a weight model: none of ours is, except one at a loopback
   * address with EXCHANGE_RATE_LIMIT=false (decision 1041), where it is off too.
   */
  rateLimit: boolean;
  timeoutMs: number;
}

export interface ClientOptions {
  credentials?: VenueCredentials;
  timeoutMs?: number;
}

// Spot only: without these, loading binance's markets also calls the margin, futures and
// capital (sapi) endpoints, several of which need keys. OKX and Bybit likewise load only spot
// instruments, and Bybit's calls without a spot market would ask its linear (derivatives) category,
// empty for a spot account. Coinbase: the Advanced Trade (v3) accounts and time, not the v2 ones.
const VENUE_OPTIONS: Partial<Record<Venue, Record<string, unknown>>> = {
  binance: { fetchMarkets: { types: ['spot'] }, fetchMargins: false, fetchCurrencies: false },
  binanceus: { fetchMarkets: { types: ['spot'] }, fetchMargins: false, fetchCurrencies: false },
  okx: { fetchMarkets: { types: ['spot'] }, defaultType: 'spot' },
  bybit: { fetchMarkets: { types: ['spot'] }, defaultType: 'spot' },
  coinbase: { fetchBalance: 'v3PrivateGetBrokerageAccounts', fetchTime: 'v3PublicGetBrokerageTime' },
};

interface CachedMarkets {
  markets: unknown[];
  currencies: Record<string, unknown> | undefined;
}

/**
 * The user a call without credentials is made for (ticker, quotes, route read by a signed-in user): the
 * kept instances are shared by every caller, so the user is read at each request, not fixed at build
 * (decision 740). Outside `readingFor` such a call is the platform's own and charged to the venue alone.
 */
const readingUser = new AsyncLocalStorage<string>();

/** Runs `work` with every request of the venues' kept instances charged to `user`'s share too (decision 740). */
export function readingFor<T>(user: string | undefined, work: () => Promise<T>): Promise<T> {
  return user === undefined ? work() : readingUser.run(user, work);
}

export interface CcxtClientDeps {
  settings: CcxtClientSettings;
  cache: Cache;
  /** The venues' door: every instance's requests leave through it (decision 250). */
  egress: Pick<Egress, 'venue'>;
  /** The venue's shared request-weight budget (one per venue and egress IP, every module and instance). */
  budget: (venue: Venue) => VenueBudget;
  /** ccxt's import (`loadCcxt` unless given): tests give one as slow as a busy machine's. */
  load?: () => Promise<CcxtModule>;
}

/**
 * ccxt's fetch hook over a venue's door. ccxt starts its timeout before it calls the hook, so a call
 * waiting in the door for the budget's room (up to VENUE_BUDGET_MAX_WAIT_MS, a key's limit at the venue)
 * would time out before it left, unsent yet read as the venue's silence: an order's lookup then answered
 * "unknown" (decision 520). ccxt's signal is dropped and the instance's timeout runs from the call's
 * admission instead (the door's `timeoutMs`).
 */
function timedFromAdmission(door: GuardedFetch, exchange: { timeout: number }): typeof fetch {
  return (input, init) => {
    const { signal: _startedBeforeTheWait, ...rest } = init ?? {};
    return door(input, { ...rest, timeoutMs: exchange.timeout });
  };
}

/**
 * An instance's fetch: its credential's owner and key are charged at every request; an instance without
 * credentials (kept and shared by every caller) charges the user it is reading for, if any (decision 740).
 */
function fetchFor(
  door: Pick<VenueEgress, 'forUser'>,
  signer: { owner: string | undefined; key: string | undefined },
  exchange: { timeout: number },
): typeof fetch {
  const { owner, key } = signer;
  if (owner !== undefined || key !== undefined) return timedFromAdmission(door.forUser(owner, key), exchange);
  return (input, init) => timedFromAdmission(door.forUser(readingUser.getStore()), exchange)(input, init);
}

export function createCcxtClients(deps: CcxtClientDeps) {
  const { settings, cache } = deps;
  const templates = new Map<Venue, { exchange: Promise<Exchange>; expiresAt: number }>();
  const learning = new Map<string, Promise<void>>();
  /** Kept instances without credentials, by venue and timeout, with the template they were made from. */
  const publicClients = new Map<string, { markets: Exchange; exchange: Promise<Exchange> }>();
  const describing = memoize((venue: Venue) => instantiate(venue));
  let built = 0;
  /** ccxt, loaded once; a failed load is forgotten so the next call retries. */
  const load = memoize(
    () => (deps.load ?? loadCcxt)(),
    () => 'ccxt',
  );

  async function instantiate(venue: Venue, options: ClientOptions = {}): Promise<Exchange> {
    const ccxt = await load();
    const Class = (ccxt as unknown as Record<string, ExchangeClass>)[venue];
    if (!Class) throw new Error(`ccxt has no exchange ${venue}`);
    const budget = deps.budget(venue);
    const weighed = budget.weights !== undefined;
    await ownTurn();
    built += 1;
    const exchange = new Class({
      // ccxt's throttle assumes one process owns the venue's whole limit; the shared budget knows better.
      enableRateLimit: settings.rateLimit && !weighed,
      timeout: options.timeoutMs ?? settings.timeoutMs,
      // The newest-first venues page by cursors that only the raw answer carries.
      enableLastJsonResponse: true,
      options: { ...structuredClone(VENUE_OPTIONS[venue]) },
      ...(options.credentials
        ? {
            apiKey: options.credentials.apiKey,
            secret: options.credentials.secret,
            ...(options.credentials.passphrase ? { password: options.credentials.passphrase } : {}),
          }
        : {}),
    });
    // Its private requests signed by node:crypto's HMAC, not ccxt's JavaScript one (decision 610).
    const signing = exchange as unknown as { hmac: CcxtHmac };
    signing.hmac = nodeHmac(signing.hmac);
    refuseBodiesNotJson(exchange, ccxt.BadResponse as unknown as new (message: string) => Error);
    noteAnswerStatus(exchange);
    holdSigningDeadlines(exchange, SIGN_WITHIN_MS);
    // The venue's door (decision 250), so outbound traffic goes where the platform sends it (tests:
    // loopback only), through the venue's one guard: budget, weights and breaker shared with the
    // market module's client, and the user's share when the instance acts for a user.
    const client = exchange as unknown as { fetchImplementation: typeof fetch };
    // The key is counted under a digest of itself (its venue limits are per key, decision 255).
    const key = options.credentials
      ? createHash('sha256').update(options.credentials.apiKey).digest('hex').slice(0, 32)
      : undefined;
    const owner = options.credentials?.owner;
    client.fetchImplementation = fetchFor(deps.egress.venue(venue), { owner, key }, exchange);
    // Kraken's nonces in order across instances, Bybit's limits per UID (decisions 280, 281).
    if (key !== undefined) {
      // Any key may read its own description: a permission refusal there says nothing of the call's.
      const keyRefused = (error: unknown) =>
        error instanceof ccxt.AuthenticationError && !(error instanceof ccxt.PermissionDenied);
      holdKeyCalls(exchange, venue, { budget, key, learning, keyRefused });
    }
    const rewrite = urlRewriter(venue, (exchange as unknown as { hostname?: string }).hostname, settings);
    if (rewrite) {
      rewriteUrls(exchange.urls.api, rewrite);
      if (venue === 'coinbase') signForCoinbaseHost(exchange, settings.apiUrls.coinbase!);
    }
    return exchange;
  }

  /**
   * The venue's kept instance without markets or credentials for its status checks (status, else server
   * time), per timeout: built once, as the describing one is, not on every check (decision 800). A
   * failed build is forgotten so the next check retries.
   */
  const probing = memoize(
    (venue: Venue, timeoutMs?: number) => instantiate(venue, { timeoutMs }),
    (venue, timeoutMs) => `${venue} ${timeoutMs ?? settings.timeoutMs}`,
  );

  async function loadTemplate(venue: Venue): Promise<Exchange> {
    const cached = await cache.wrap<CachedMarkets>(`exchange:markets:v1:${venue}`, MARKETS_TTL_MS, async () => {
      const loader = await instantiate(venue);
      await loader.loadMarkets();
      return {
        markets: Object.values(loader.markets ?? {}),
        currencies: loader.currencies as Record<string, unknown> | undefined,
      };
    });
    const template = await instantiate(venue);
    template.setMarkets(cached.markets as never, cached.currencies as never);
    rebuildAltnames(template);
    return template;
  }

  /** The venue's template, markets loaded; rejected loads are forgotten so the next call retries. */
  function template(venue: Venue): Promise<Exchange> {
    const current = templates.get(venue);
    if (current && current.expiresAt > Date.now()) return current.exchange;
    // The markets are the platform's own load, shared by every caller: never charged to the user who asked first.
    const exchange = readingUser.exit(() => loadTemplate(venue));
    templates.set(venue, { exchange, expiresAt: Date.now() + MARKETS_TTL_MS });
    exchange.catch(() => {
      if (templates.get(venue)?.exchange === exchange) templates.delete(venue);
    });
    return exchange;
  }

  /** A fresh instance with the venue's markets, throttle and clock offset. */
  async function client(venue: Venue, options: ClientOptions = {}): Promise<Exchange> {
    const shared = await template(venue);
    const exchange = await instantiate(venue, options);
    exchange.setMarketsFromExchange(shared);
    const mutable = exchange as unknown as { throttler: unknown; options: Record<string, unknown> };
    mutable.throttler = (shared as unknown as { throttler: unknown }).throttler;
    mutable.options.timeDifference = shared.options.timeDifference;
    rebuildAltnames(exchange);
    return exchange;
  }

  return {
    client,

    /**
     * The venue's kept instance for calls without credentials (markets, tickers), with its markets,
     * throttle and clock offset: a new instance is milliseconds of CPU in one turn of the event loop
     * (its constructor, then the venue's markets copied in), too much for each last price an order
     * asks (decision 375). Kept per timeout, rebuilt when the venue's markets are reloaded; a failed
     * build is forgotten so the next call retries. Never for a credentialed or exact-number call.
     */
    async shared(venue: Venue, timeoutMs?: number): Promise<Exchange> {
      const markets = await template(venue);
      const key = `${venue} ${timeoutMs ?? settings.timeoutMs}`;
      const kept = publicClients.get(key);
      if (kept && kept.markets === markets) {
        const exchange = await kept.exchange;
        exchange.options.timeDifference = markets.options.timeDifference;
        return exchange;
      }
      const exchange = client(venue, { timeoutMs });
      publicClients.set(key, { markets, exchange });
      exchange.catch(() => {
        if (publicClients.get(key)?.exchange === exchange) publicClients.delete(key);
      });
      return exchange;
    },

    /** How many ccxt instances this process has built (tests). */
    built: () => built,

    /**
     * The venue's shared instance with its markets loaded, to read markets from only: it holds no
     * credentials and is never to call the venue. A new ccxt instance costs milliseconds of CPU (it
     * defines every endpoint of the venue's API), too much for each order's market lookup.
     */
    markets(venue: Venue): Promise<Exchange> {
      return template(venue);
    },

    /** A new instance without markets (tests of what every instance carries). */
    bare(venue: Venue, options: ClientOptions = {}): Promise<Exchange> {
      return instantiate(venue, options);
    },

    probing,

    /** After a -1021, measure the venue's clock again and let later instances start from it. */
    async resyncTime(venue: Venue, exchange: Exchange): Promise<void> {
      await (exchange as unknown as { loadTimeDifference(): Promise<unknown> }).loadTimeDifference();
      const shared = await template(venue);
      shared.options.timeDifference = exchange.options.timeDifference;
    },

    async errorClasses(): Promise<CcxtErrorClasses> {
      return (await load()) as unknown as CcxtErrorClasses;
    },

    /** A describing instance per venue (no markets), built once. */
    describing,

    /**
     * Once this has answered, ccxt is loaded and the venue's describing instance built: the CPU a first
     * call spends before it asks the venue. A bound meant for the venue's answer starts after it (decision 700).
     * With `probeTimeoutMs`, the venue's kept status instance for that timeout is built too (decision 800).
     */
    async ready(venue: Venue, probeTimeoutMs?: number): Promise<void> {
      await describing(venue);
      if (probeTimeoutMs !== undefined) await probing(venue, probeTimeoutMs);
    },
  };
}

export type CcxtClients = ReturnType<typeof createCcxtClients>;

/** Where Coinbase's API lives: the host its JWTs must name, whichever proxy carries them. */
const COINBASE_HOST = 'https://api.coinbase.com';

/**
 * A Coinbase JWT names the request's host and path (`uri` = "GET api.coinbase.com/api/v3/…") and
 * Coinbase checks it against its own host, so a token for a proxy's host is refused. ccxt signs the
 * URL it sends to; here it signs the Coinbase URL the proxy forwards to instead (PROTOCOLS B9).
 */
export function signForCoinbaseHost(exchange: Exchange, target: string): void {
  const client = exchange as unknown as {
    createAuthToken(seconds: number, method?: string, url?: string, useEddsa?: boolean): string;
  };
  const sign = client.createAuthToken.bind(client);
  const origin = target.replace(/\/+$/, '');
  client.createAuthToken = (seconds, method, url, useEddsa) =>
    sign(seconds, method, url?.startsWith(origin) ? COINBASE_HOST + url.slice(origin.length) : url, useEddsa);
}

/**
 * Kraken names pairs in orders by altname; ccxt maps them back through `marketsByAltname`, which
 * only its own market fetch fills. Markets set from the cache need it rebuilt (PROTOCOLS B8).
 */
function rebuildAltnames(exchange: Exchange): void {
  if (exchange.id !== 'kraken') return;
  const byAltname: Record<string, unknown> = {};
  for (const market of Object.values(exchange.markets ?? {})) {
    const altname = (market as { altname?: unknown } | undefined)?.altname;
    if (typeof altname === 'string') byAltname[altname] = market;
  }
  exchange.options.marketsByAltname = byAltname;
}

/** `load`'s promise kept per key (its first argument unless `keyOf` says), a failed one forgotten so the next call retries. */
function memoize<A extends unknown[], V>(
  load: (...args: A) => Promise<V>,
  keyOf: (...args: A) => unknown = (...args) => args[0],
): (...args: A) => Promise<V> {
  const values = new Map<unknown, Promise<V>>();
  return (...args) => {
    const key = keyOf(...args);
    let value = values.get(key);
    if (!value) {
      value = load(...args);
      values.set(key, value);
      value.catch(() => {
        if (values.get(key) === value) values.delete(key);
      });
    }
    return value;
  };
}
