// The exchange module: users' venue credentials, balances and trades, and public venue data, over
// one VenueGateway (ccxt). Other modules use `credentials.reencryptAll` and `tradingSummary.forUsers`.
import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { ExchangeDeps } from './exchange.deps.ts';
import { CcxtVenueGateway } from './adapters/ccxt-venue-gateway.ts';
import type { CcxtModule } from './adapters/ccxt-clients.ts';
import type { VenueGateway } from './adapters/venue-gateway.ts';
import { createAccountSyncService } from './account-sync.service.ts';
import { createBalancesRepository } from './balances.repository.ts';
import { createBalancesService } from './balances.service.ts';
import { createBinanceAccountService } from './binance-account.service.ts';
import { createCredentialRotation } from './credential-rotation.service.ts';
import { createCredentialsRepository, type CredentialRow } from './credentials.repository.ts';
import { createCredentialsService } from './credentials.service.ts';
import { credentialJoin } from './credential-join.ts';
import { createHealthService } from './health.service.ts';
import { createRoutingService } from './routing.service.ts';
import { balancesRoutes } from './routes/balances.routes.ts';
import { binanceAccountRoutes } from './routes/binance-account.routes.ts';
import { credentialsRoutes } from './routes/credentials.routes.ts';
import { tradesRoutes } from './routes/trades.routes.ts';
import { transfersRoutes } from './routes/transfers.routes.ts';
import { createTransfersRepository } from './transfers.repository.ts';
import { createTransfersService } from './transfers.service.ts';
import { venuesRoutes } from './routes/venues.routes.ts';
import { createTradesRepository } from './trades.repository.ts';
import { createTradesService } from './trades.service.ts';
import { createTradingSummaryRepository } from './trading-summary.repository.ts';
import { createTradingSummary } from './trading-summary.service.ts';
import { createUsdPrices } from './usd-prices.ts';
import { createValidationService } from './validation.service.ts';
import { createSyncThrottle } from './sync-throttle.ts';
import { createVenuesService } from './venues.service.ts';
import { isVenue, VENUES, type Venue } from './venues.domain.ts';
import type { VenueEgress } from '../../platform/venue-budget/egress.ts';
import type { BudgetState } from '../../platform/venue-budget/venue-budget.ts';
import { venueProfile } from './adapters/venue-profiles.ts';
import { createLiveOrderVenue, orderMarketOf, type OrderMarket } from './adapters/ccxt-order-venue.ts';
import { createCredentialClients, type CredentialVersion } from './adapters/ccxt-credential-clients.ts';
import type { DbExecutor } from '../../platform/db/database.ts';
import type { ResolvedCredential } from '../../platform/order-venue.ts';
import { Decimal } from 'decimal.js';
import { bindJob } from '../../platform/jobs.ts';
import { syncAccountsJob } from './sync-accounts.job.ts';

/** One order fill, as the orders module hands it over to be stored as the user's trade. */
export interface OrderFillTrade {
  userId: string;
  exchange: string;
  credentialId: string | null;
  symbol: string;
  side: 'buy' | 'sell';
  tradeId: string;
  price: string;
  amount: string;
  fee: string;
  feeCurrency: string | null;
  at: Date;
}

export type { OrderMarket } from './adapters/ccxt-order-venue.ts';
export type { AccountSyncResult } from './account-sync.service.ts';
export { VenueField } from './common.schemas.ts';
export { fillTradesText } from './trades.repository.ts';
export { isVenue, type Venue } from './venues.domain.ts';

/** The one guarded way to a venue: its shared budget and breaker, and a fetch that goes through them. */
export type VenueAccess = Pick<VenueEgress, 'budget' | 'fetch'>;

/** How the module is built: the venue library's import (`loadCcxt` unless given; tests, decision 700). */
export interface ExchangeOptions {
  loadCcxt?: () => Promise<CcxtModule>;
}

export function createExchangeModule(platform: Platform, deps: ExchangeDeps, options: ExchangeOptions = {}) {
  const { config, database, cache, clock, secretBox, logger } = platform;
  const { guards, events } = deps;
  const db = database.db;
  // Each venue's budget learns its name and weights here, beside the venue code, before any call.
  for (const venue of VENUES) platform.venueBudgets.venue(venue).describe(venueProfile(venue, config.exchange));
  const ccxtGateway = new CcxtVenueGateway({
    settings: {
      binanceApiUrl: config.market.binanceApiUrl,
      binanceUsApiUrl: config.market.binanceUsApiUrl,
      apiUrls: config.exchange.apiUrls,
      rateLimit: config.exchange.rateLimit,
      timeoutMs: config.exchange.timeoutMs,
    },
    cache,
    egress: platform.egress,
    budget: (venue) => platform.venueBudgets.venue(venue),
    ...(options.loadCcxt ? { load: options.loadCcxt } : {}),
  });
  const gateway: VenueGateway = ccxtGateway;

  const credentialsRepo = createCredentialsRepository(db);
  const balancesRepo = createBalancesRepository(db);
  const tradesRepo = createTradesRepository(db);
  const transfersRepo = createTransfersRepository(db);
  const prices = createUsdPrices(cache);

  const credentialClients = createCredentialClients({
    client: (venue, options) => ccxtGateway.clients.client(venue, options),
    markets: (venue) => ccxtGateway.clients.markets(venue),
  });
  const credentials = createCredentialsService({
    db,
    repo: credentialsRepo,
    secretBox,
    clock,
    logger,
    events,
    describe: (venue) => gateway.describe(venue),
    forget: credentialClients.forget,
  });
  const rotation = createCredentialRotation({ db, repo: credentialsRepo, secretBox, clock, logger });
  const validation = createValidationService({ db, gateway, repo: credentialsRepo, credentials, clock, events });
  const balances = createBalancesService({ db, repo: balancesRepo, gateway, credentials, clock, events });
  const trades = createTradesService({
    db,
    repo: tradesRepo,
    balances: balancesRepo,
    gateway,
    credentials,
    clock,
    logger,
    events,
    horizonDays: config.exchange.tradeSyncHorizonDays,
  });
  const transfers = createTransfersService({
    db,
    repo: transfersRepo,
    gateway,
    credentials,
    clock,
    logger,
    events,
    horizonDays: config.exchange.tradeSyncHorizonDays,
  });
  const { probeTimeoutMs } = config.exchange;
  const venues = createVenuesService({ gateway, prices, probeTimeoutMs });
  const routing = createRoutingService({ gateway, prices, clock, probeTimeoutMs });
  const budgetOf = (venue: Venue) => platform.venueBudgets.venue(venue);
  const health = createHealthService({ gateway, cache, clock, probeTimeoutMs, budget: budgetOf });
  const account = createBinanceAccountService({ db, gateway, credentials, clock });
  const tradingSummary = createTradingSummary({ repo: createTradingSummaryRepository(db), prices });
  const throttle = createSyncThrottle({ cache, clock, perMinute: config.exchange.syncPerUserPerMinute });
  /** The credentials this module read for an order: only these are taken back from a send's request. */
  const readForOrders = new WeakSet<CredentialVersion>();
  const versionOf = (row: CredentialRow, venue: Venue): CredentialVersion => {
    const version: CredentialVersion = {
      id: row.id,
      userId: row.userId,
      venue,
      sealed: [row.apiKeySealed, row.apiSecretSealed, row.apiPassphraseSealed],
      open: () => credentials.open(row),
    };
    readForOrders.add(version);
    return version;
  };
  const liveOrders = createLiveOrderVenue({
    clients: ccxtGateway.clients,
    credentialClients,
    now: () => clock.now().getTime(),
    credential: async (userId, venue, credentialId) =>
      versionOf(await credentials.ownedOn(userId, venue, credentialId), venue),
    readBefore: (credential) =>
      readForOrders.has(credential as CredentialVersion) ? (credential as CredentialVersion) : undefined,
  });
  const accountSync = createAccountSyncService({ repo: credentialsRepo, cache, balances, trades, transfers, logger });

  return {
    name: 'exchange',
    routes: async (app: FastifyInstance) => {
      await app.register(credentialsRoutes({ credentials, validation, guards, throttle }));
      await app.register(balancesRoutes({ balances, guards, throttle }));
      await app.register(tradesRoutes({ trades, guards, throttle }));
      await app.register(transfersRoutes({ transfers, guards, throttle }));
      await app.register(venuesRoutes({ venues, routing, health, guards }));
      await app.register(binanceAccountRoutes({ account, guards }));
    },
    credentials: { reencryptAll: rotation.reencryptAll, removeAllOnClaim: credentials.removeAllOnClaim },
    /** Its job: every active credential's balance and new trades, within a share of each venue's budget. */
    jobs: [bindJob(syncAccountsJob, { accounts: accountSync, syncAccountsShare: config.jobs.syncAccountsBudgetShare })],
    /**
     * For the dashboard: per venue, active stored credentials (count, last good and failed check),
     * and one venue's health as GET /api/exchange/{venue}/health answers it (cached for a minute).
     */
    venueStatus: {
      venues: VENUES,
      credentialStats: () => credentialsRepo.statsPerVenue(),
      /** Once answered, a venue check's time is the venue's: the venue library is loaded (decision 700). */
      ready: (venue: Venue) => gateway.ready(venue),
      health: (venue: Venue) => health.one(venue, false),
      /** The venue's request-weight budget now (shared across instances), for the dashboard. */
      budget: (venue: Venue): Promise<BudgetState> =>
        budgetOf(venue)
          .state()
          .catch(() => budgetOf(venue).snapshot()),
    },
    tradingSummary,
    /**
     * For the paper engine: a venue's maker and taker fee rates as ccxt describes its markets (no
     * request is made); null where ccxt has none. An unknown venue has none.
     */
    tradingFees: async (venue: string): Promise<{ maker: number | null; taker: number | null }> => {
      if (!isVenue(venue)) return { maker: null, taker: null };
      const { fees } = await gateway.describe(venue);
      return { maker: fees.maker, taker: fees.taker };
    },
    /** For the market module: Binance through the same budget, weights and breaker as the ccxt calls. */
    venueAccess: (venue: Venue): VenueAccess => platform.egress.venue(venue),
    /**
     * For the orders module: the live venue (ccxt with the user's credential), a market's order limits,
     * the credential an order trades with, and fills stored as the user's trades in the caller's
     * transaction (the same row trade sync stores: once per venue trade id, whichever sees it first).
     */
    orders: {
      liveVenue: liveOrders,
      /** Once answered, the venue library is loaded and the venue's client built (decisions 700, 801). */
      ready: (venue: Venue) => gateway.ready(venue),
      market: (venue: Venue, symbol: string): Promise<OrderMarket | null> =>
        orderMarketOf(ccxtGateway.clients, venue, symbol),
      lastPrice: async (venue: Venue, symbol: string): Promise<number | null> =>
        (await gateway.tickers(venue, [symbol]))[0]?.last ?? null,
      /**
       * The credential an order trades with, read once as a join of the caller's statement (its one parameter
       * `$first`, the user's id `u.user_id`; decision 650): its send uses this reading (decision 345).
       */
      credentialJoin: (venue: Venue, credentialId: string | undefined, first: number) => {
        const joined = credentialJoin(venue, credentialId, first);
        return {
          ...joined,
          of: (row: Record<string, unknown>): ResolvedCredential => versionOf(joined.of(row), venue),
        };
      },
      recordFills: (fills: OrderFillTrade[], executor?: DbExecutor): Promise<number> =>
        tradesRepo.insertNew(
          fills.map((f) => ({
            userId: f.userId,
            exchange: f.exchange,
            credentialId: f.credentialId,
            exchangeTradeId: f.tradeId,
            symbol: f.symbol,
            side: f.side,
            price: f.price,
            amount: f.amount,
            total: new Decimal(f.price).times(f.amount).toFixed(),
            fee: f.fee,
            feeCurrency: f.feeCurrency,
            tradeTimestamp: f.at,
          })),
          executor,
        ),
    },
    /** For the portfolio: a user's latest holdings per venue, complete trades and completed transfers, oldest first. */
    portfolio: {
      holdings: (userId: string, exchange?: string) => balancesRepo.latestForUser(userId, exchange),
      trades: (userId: string) => tradesRepo.ledgerRows(userId),
      tradesCreatedAfter: (userId: string, at: Date) => tradesRepo.ledgerRows(userId, at),
      tradeCountCreatedBetween: (userId: string, from: Date, to: Date) =>
        tradesRepo.countCreatedBetween(userId, from, to),
      transferCount: (userId: string) => transfersRepo.completedCount(userId),
      transfers: (userId: string) => transfersRepo.completed(userId),
    },
  };
}

export type ExchangeModule = ReturnType<typeof createExchangeModule>;

/** What the module contributes to the app and the database (decision 230). */
export { EXCHANGE_MODULE } from './exchange.module.ts';
