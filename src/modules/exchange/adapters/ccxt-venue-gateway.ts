// VenueGateway over ccxt. Every call: run on a fresh instance (without credentials, the venue's kept
// one) whose requests are charged to the venue's shared budget (which also holds every caller back
// after a 429/418), resynchronise the clock and retry once on -1021, and leave only VenueErrors, or
// the budget's refusal (503, nothing sent).
import type { Exchange, MarketInterface } from 'ccxt';
import { BudgetRefusal, UserShareRefusal } from '../../../platform/venue-budget/venue-budget.ts';
import { FEE_TOKEN, type BinanceVenue, type Venue } from '../venues.domain.ts';
import {
  createCcxtClients,
  readingFor,
  type CcxtClientDeps,
  type CcxtClients,
  type ClientOptions,
} from './ccxt-clients.ts';
import { toVenueError } from './ccxt-errors.ts';
import { mapDustBtc, mapUsDustAssets } from './binance-dust.ts';
import {
  numberOrNull,
  toBalances,
  toBurn,
  toVenueMarket,
  toVenueTicker,
  toVenueTrade,
  toVenueTransfer,
} from './ccxt-mappers.ts';
import { oldestTrades, pagesNewestFirst } from './venue-trade-pages.ts';
import {
  VenueError,
  type CallOptions,
  type KeyScope,
  type TradePage,
  type VenueBalance,
  type VenueCredentials,
  type VenueDescription,
  type VenueGateway,
  type VenueMarket,
  type VenueTicker,
  type VenueTrade,
  type VenueTransfer,
} from './venue-gateway.ts';

/** The `has` entries reported as capabilities by `supported` and `info`. */
const CAPABILITIES = [
  'fetchMarkets',
  'fetchTicker',
  'fetchTickers',
  'fetchOrderBook',
  'fetchOHLCV',
  'fetchBalance',
  'fetchMyTrades',
  'fetchOrders',
  'fetchOpenOrders',
  'createOrder',
  'cancelOrder',
  'fetchDeposits',
  'fetchWithdrawals',
  'withdraw',
  'fetchTradingFees',
  'fetchStatus',
  'fetchTime',
] as const;

type Sapi = Record<string, (params?: Record<string, unknown>) => Promise<Record<string, unknown>>>;

export class CcxtVenueGateway implements VenueGateway {
  /** The venue clients, shared with the live order venue (one configuration of ccxt). */
  readonly clients: CcxtClients;

  constructor(deps: CcxtClientDeps) {
    this.clients = createCcxtClients(deps);
  }

  ready(venue: Venue, options: CallOptions = {}): Promise<void> {
    return this.clients.ready(venue, options.timeoutMs);
  }

  async describe(venue: Venue): Promise<VenueDescription> {
    const exchange = await this.clients.describing(venue);
    const trading = (exchange.fees as { trading?: Record<string, unknown> }).trading ?? {};
    const urls = exchange.urls as Record<string, unknown>;
    const doc = urls.doc;
    return {
      id: venue,
      name: exchange.name ?? venue,
      requiresPassphrase: exchange.requiredCredentials.password === true,
      capabilities: Object.fromEntries(CAPABILITIES.map((name) => [name, Boolean(exchange.has[name])])),
      countries: [...((exchange.countries as string[] | undefined) ?? [])],
      rateLimitMs: exchange.rateLimit ?? 0,
      fees: {
        maker: numberOrNull(trading.maker),
        taker: numberOrNull(trading.taker),
        percentage: typeof trading.percentage === 'boolean' ? trading.percentage : null,
        tierBased: typeof trading.tierBased === 'boolean' ? trading.tierBased : null,
      },
      urls: {
        www: typeof urls.www === 'string' ? urls.www : null,
        doc: (Array.isArray(doc) ? doc : [doc]).filter((d): d is string => typeof d === 'string'),
        fees: typeof urls.fees === 'string' ? urls.fees : null,
      },
    };
  }

  async markets(venue: Venue, options: CallOptions = {}): Promise<VenueMarket[]> {
    return this.call(venue, { timeoutMs: options.timeoutMs }, async (exchange) =>
      (Object.values(exchange.markets ?? {}) as MarketInterface[]).filter((m) => m?.spot).map(toVenueMarket),
    );
  }

  async tickers(venue: Venue, symbols: string[], options: CallOptions = {}): Promise<VenueTicker[]> {
    if (symbols.length === 0) return [];
    // A signed-in user's read is charged to their share of the venue's minute (decision 740).
    return this.call(venue, { timeoutMs: options.timeoutMs, user: options.user }, async (exchange) => {
      if (symbols.length === 1) return [toVenueTicker(await exchange.fetchTicker(symbols[0]!))];
      if (exchange.has.fetchTickers) {
        const all = await exchange.fetchTickers(symbols);
        return symbols.filter((s) => all[s]).map((s) => toVenueTicker(all[s]!));
      }
      return Promise.all(symbols.map(async (s) => toVenueTicker(await exchange.fetchTicker(s))));
    });
  }

  async status(venue: Venue, options: CallOptions = {}) {
    // The venue's kept status instance (decision 800): a check builds none after the first.
    const exchange = await this.clients.probing(venue, options.timeoutMs);
    const started = performance.now();
    try {
      let status: 'ok' | 'maintenance' | 'shutdown' | 'error' = 'ok';
      if (exchange.has.fetchStatus === true) {
        const answer = await exchange.fetchStatus();
        status = (['ok', 'maintenance', 'shutdown', 'error'] as const).find((s) => s === answer.status) ?? 'error';
      } else if (exchange.has.fetchTime) {
        await exchange.fetchTime();
      } else {
        await exchange.fetchMarkets();
      }
      return { status, latencyMs: Math.round(performance.now() - started) };
    } catch (error) {
      throw await this.fail(venue, exchange, error);
    }
  }

  async balance(venue: Venue, credentials: VenueCredentials): Promise<VenueBalance[]> {
    return this.call(venue, { credentials }, async (exchange) => toBalances(await exchange.fetchBalance()), true);
  }

  async keyCheck(venue: Venue, credentials: VenueCredentials): Promise<{ currencies: number; scope: KeyScope }> {
    return this.call(
      venue,
      { credentials },
      async (exchange) => {
        const balances = await exchange.fetchBalance();
        const currencies = toBalances(balances).length;
        const info = balances.info as Record<string, unknown> | undefined;
        if (venue === 'binance') {
          const r = await (exchange as unknown as Sapi).sapiGetAccountApiRestrictions!();
          return {
            currencies,
            scope: {
              permissions: {
                read: r.enableReading === true,
                trade: r.enableSpotAndMarginTrading === true,
                withdraw: r.enableWithdrawals === true,
              },
              ipRestricted: r.ipRestrict === true,
              source: 'apiRestrictions',
            },
          };
        }
        if (venue === 'binanceus' && info && typeof info.canTrade === 'boolean') {
          // binance.us has no apiRestrictions; the account answer says what the key may do.
          const scope = {
            permissions: { read: true, trade: info.canTrade === true, withdraw: info.canWithdraw === true },
            ipRestricted: null,
            source: 'account',
          };
          return { currencies, scope };
        }
        return { currencies, scope: { permissions: null, ipRestricted: null, source: null } };
      },
      true,
    );
  }

  async myTrades(venue: Venue, credentials: VenueCredentials, symbol: string, page: TradePage): Promise<VenueTrade[]> {
    if (pagesNewestFirst(venue)) {
      // These venues answer newest first: their own paging finds the oldest trades after `since`.
      const since = page.since ?? 0;
      return this.call(
        venue,
        { credentials },
        async (exchange) =>
          (await oldestTrades(venue, exchange, symbol, since, page.limit, Date.now(), page.known)).map(toVenueTrade),
        true,
      );
    }
    // ccxt passes extra parameters through: Binance's fromId continues exactly after the last stored id.
    const params = page.fromId !== undefined ? { fromId: page.fromId } : {};
    return this.call(
      venue,
      { credentials },
      async (exchange) => (await exchange.fetchMyTrades(symbol, page.since, page.limit, params)).map(toVenueTrade),
      true,
    );
  }

  async transfers(
    venue: Venue,
    credentials: VenueCredentials,
    type: 'deposit' | 'withdrawal',
    window: { since: number; until: number; limit: number },
  ): Promise<VenueTransfer[]> {
    // ccxt sets Binance's endTime to since + 90 days (withdrawals ignore `until`): endTime is passed through instead.
    const params = { endTime: window.until, until: window.until };
    return this.call(
      venue,
      { credentials },
      async (exchange) => {
        const rows =
          type === 'deposit'
            ? await exchange.fetchDeposits(undefined, window.since, window.limit, params)
            : await exchange.fetchWithdrawals(undefined, window.since, window.limit, params);
        return rows.map(toVenueTransfer);
      },
      true,
    );
  }

  async feeTokenBurn(venue: BinanceVenue, credentials: VenueCredentials) {
    this.requireGlobalBinance(venue, 'Fee-token burn');
    return this.call(
      venue,
      { credentials },
      async (exchange) => toBurn(await (exchange as unknown as Sapi).sapiGetBnbBurn!()),
      true,
    );
  }

  async setFeeTokenBurn(venue: BinanceVenue, credentials: VenueCredentials, spot: boolean) {
    this.requireGlobalBinance(venue, 'Fee-token burn');
    // Binance reads spotBNBBurn as the strings "true"/"false".
    return this.call(
      venue,
      { credentials },
      async (exchange) =>
        toBurn(await (exchange as unknown as Sapi).sapiPostBnbBurn!({ spotBNBBurn: spot ? 'true' : 'false' })),
      true,
    );
  }

  async dustAssets(venue: BinanceVenue, credentials: VenueCredentials) {
    return this.call(
      venue,
      { credentials },
      async (exchange) => {
        const sapi = exchange as unknown as Sapi;
        if (venue === 'binance') return mapDustBtc(await sapi.sapiPostAssetDustBtc!({ accountType: 'SPOT' }));
        return mapUsDustAssets(await sapi.sapiGetAssetQueryDustAssets!({ toAsset: FEE_TOKEN }));
      },
      true,
    );
  }

  private requireGlobalBinance(venue: BinanceVenue, what: string): void {
    if (venue !== 'binance')
      throw new VenueError(venue, 'not_supported', `${what} is not supported on ${venue}; use exchange=binance`);
  }

  private async call<T>(
    venue: Venue,
    options: ClientOptions & { user?: string },
    run: (exchange: Exchange) => Promise<T>,
    exactNumbers = false,
  ): Promise<T> {
    let exchange: Exchange | undefined;
    try {
      // Without credentials (markets, tickers) the venue's kept instance; with them, one of the call's own.
      exchange =
        options.credentials === undefined && !exactNumbers
          ? await this.clients.shared(venue, options.timeoutMs)
          : await this.clients.client(venue, options);
      // Balances and trades keep the venue's decimal strings; floats would round them.
      if (exactNumbers) (exchange as unknown as { number: unknown }).number = String;
      const opened = exchange;
      return await readingFor(options.user, () => run(opened));
    } catch (error) {
      const classes = await this.clients.errorClasses();
      if (exchange && options.credentials && error instanceof classes.InvalidNonce) {
        try {
          await this.clients.resyncTime(venue, exchange);
          return await run(exchange);
        } catch (retryError) {
          throw await this.fail(venue, exchange, retryError);
        }
      }
      throw await this.fail(venue, exchange, error);
    }
  }

  private async fail(
    venue: Venue,
    exchange: Exchange | undefined,
    error: unknown,
  ): Promise<VenueError | BudgetRefusal | UserShareRefusal> {
    if (error instanceof BudgetRefusal || error instanceof UserShareRefusal) return error;
    const classes = await this.clients.errorClasses();
    return toVenueError(classes, venue, error, exchange?.last_response_headers as Record<string, string> | undefined);
  }
}
