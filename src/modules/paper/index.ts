// The paper engine (docs/decisions/215): each user's paper account, an OrderVenue that walks the
// venue's real book with its real fees, and the watch that fills resting orders from the price stream.
// The orders module submits through `venue` and hears of fills made outside its calls on `onOrderChanged`.
import type { OrderVenue } from '../../platform/order-venue.ts';
import type { Platform } from '../../platform/platform.ts';
import type { PaperDeps } from './paper.deps.ts';
import { createPaperAccountService } from './account.service.ts';
import { createPaperRepository } from './paper.repository.ts';
import { createPaperVenue, type OrderChange } from './paper-venue.service.ts';
import { createRestingWatch } from './resting-watch.service.ts';
import { paperAccountRoutes } from './routes/account.routes.ts';

export type { OrderChange } from './paper-venue.service.ts';

/** The resting watch's periods (docs/decisions/640); tests shorten them. */
export interface RestingWatchTimes {
  /** While an order rests (or the LISTEN failed): the resting symbols read, and REST prices without the stream. */
  periodMs?: number;
  /** While none rests and the watch listens: the fallback read, for a notification lost. */
  idlePeriodMs?: number;
}

export function createPaperModule(platform: Platform, deps: PaperDeps, times: RestingWatchTimes = {}) {
  const { config, database, clock, logger } = platform;
  const { market, guards } = deps;
  const db = database.db;
  const repo = createPaperRepository(db);
  const listeners = new Set<(change: OrderChange) => void>();
  function changed(change: OrderChange): void {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        logger.error({ err: error }, 'paper: an order-change listener failed');
      }
    }
  }
  const watch = createRestingWatch({
    db,
    repo,
    clock,
    logger,
    changed,
    listen: database.listen,
    periodMs: times.periodMs ?? 2_000,
    idlePeriodMs: times.idlePeriodMs ?? 60_000,
    prices: {
      onTicks: market.trading.onTicks,
      streaming: market.trading.streaming,
      lastPrices: async () => (await market.quotes.last()).prices,
    },
  });
  const startBalances = config.paper.startBalances;
  const venue: OrderVenue = createPaperVenue({
    db,
    repo,
    clock,
    market: { pair: market.trading.pair, book: market.trading.book },
    fees: deps.fees,
    startBalances,
    rested: watch.rested,
  });
  const account = createPaperAccountService({
    db,
    repo,
    clock,
    logger,
    quotes: market.quotes,
    startBalances,
    source: market.trading.source,
    changed,
  });

  /**
   * Offline (MARKET_DATA_SOURCE=simulated), a paper order's market and its last price come from the
   * simulated source, which states no limits beyond listing the pair; with a venue's data, the venue's
   * own rules apply (the orders module asks the exchange module), as they would for a live order.
   */
  const offlineMarket =
    market.trading.source === 'simulated'
      ? {
          async market(symbol: string) {
            const { byPair } = await market.quotes.last();
            const wanted = symbol.trim().toUpperCase();
            const info =
              byPair.get(wanted.replace('-', '/')) ??
              [...byPair.values()].find((p) => p.symbol === wanted.replace(/[-/]/g, ''));
            if (!info) return null;
            return {
              symbol: `${info.base}/${info.quote}`,
              active: info.status === 'TRADING',
              minAmount: null,
              minCost: null,
              amountStep: null,
              priceStep: null,
            };
          },
          async lastPrice(symbol: string): Promise<number | null> {
            const { byPair, prices } = await market.quotes.last();
            const price = prices.get(byPair.get(symbol)?.symbol ?? '');
            return price === undefined ? null : Number(price);
          },
        }
      : null;

  return {
    name: 'paper',
    offlineMarket,
    /** The resting orders are watched while the server listens, as the market's live stream runs. */
    hooks: { listening: () => watch.start(), closed: () => watch.stop() },
    routes: paperAccountRoutes({ service: account, guards }),
    /** The paper engine behind the OrderVenue interface. */
    venue,
    /**
     * Calls `listener` when a paper order changes outside a submit or cancel call (a resting order
     * filled as the price went through it, or canceled by an account reset); answers the unsubscribe.
     */
    onOrderChanged(listener: (change: OrderChange) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /**
     * What is free of an asset in the user's paper account (for a signal sized in percent): its start
     * balance while the account has not been opened.
     */
    async free(userId: string, asset: string): Promise<string> {
      await repo.ensureAccount(userId, startBalances, clock.now());
      return (await repo.balances(userId)).find((row) => row.asset === asset)?.free ?? '0';
    },
    /** Whether this instance follows a venue symbol's ticks now, and a look at the prices heard so far (tests). */
    restingWatch: { watching: watch.watching, look: watch.look },
  };
}

export type PaperModule = ReturnType<typeof createPaperModule>;

/** What the module contributes to the app and the database (decision 230). */
export { PAPER_MODULE } from './paper.module.ts';
