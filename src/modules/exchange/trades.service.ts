// Trade history: a sync pulls the user's fills from the venue per symbol (Binance's myTrades needs
// one), one page of at most `limit` per market, continuing after the newest trade stored for the
// credential (docs/decisions/111), and stores the new ones; reads and statistics answer from what
// is stored.
import type { Logger } from 'pino';
import { audit } from './exchange.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { EXCHANGE_EVENTS } from './exchange.events.ts';
import { notFound } from '../../platform/http/errors.ts';
import {
  VenueError,
  type VenueCredentials,
  type VenueGateway,
  type VenueMarket,
  type VenueTrade,
} from './adapters/venue-gateway.ts';
import type { BalancesRepository } from './balances.repository.ts';
import { auditActor, type CredentialsService, type AccountActor } from './credentials.service.ts';
import { resolveSymbol, symbolsForHoldings } from './markets.domain.ts';
import { nextCursor, startPage, type Cursor } from './trade-cursor.domain.ts';
import type { NewTrade, TradeRow, TradesRepository, TradeStatsRow } from './trades.repository.ts';
import type { Venue } from './venues.domain.ts';

/** Symbols one full sync may ask about; each myTrades call weighs 10–20 on Binance. */
const MAX_SYMBOLS_PER_SYNC = 20;

/** What one sync fetched for one market, and where the next continues. */
export interface MarketSync {
  symbol: string;
  fetched: number;
  synced: number;
  duplicate: number;
  /** The page was full: more trades may follow. */
  hasMore: boolean;
  nextCursor: Cursor;
}

/** One trade sync over the named market, or the markets of the currencies held. */
export interface TradeSync {
  success: boolean;
  userId: string;
  venue: Venue;
  /** The market asked for (unified); null for a full sync. */
  symbol: string | null;
  symbols: string[];
  tradesSynced: number;
  tradesDuplicate: number;
  hasMore: boolean;
  markets: MarketSync[];
  syncedAt: Date;
  error: string | null;
  errorType: VenueError['errorType'] | null;
}

/** A page of stored trades, newest first. */
export interface TradePage {
  venue: Venue;
  /** The market asked for, as stored; null when none was. */
  symbol: string | null;
  rows: TradeRow[];
  total: number;
  hasMore: boolean;
}

/** Trade statistics over a window, and the window asked for. */
export interface TradeStatistics {
  stats: TradeStatsRow;
  start: Date | null;
  end: Date | null;
  venue: Venue | null;
}

/** A venue fill as a row; incomplete fills are kept, marked `failed`, rather than dropped unseen. */
function toRow(
  trade: VenueTrade,
  context: { userId: string; venue: Venue; credentialId: string },
): NewTrade | undefined {
  if (trade.id === null || trade.timestamp === null || !trade.symbol) return undefined;
  const complete = trade.side !== null && trade.price !== null && trade.amount !== null;
  return {
    userId: context.userId,
    exchange: context.venue,
    credentialId: context.credentialId,
    exchangeTradeId: trade.id,
    symbol: trade.symbol,
    side: trade.side ?? 'unknown',
    price: trade.price,
    amount: trade.amount,
    total: trade.cost,
    fee: trade.fee,
    feeCurrency: trade.feeCurrency,
    tradeTimestamp: new Date(trade.timestamp),
    syncStatus: complete ? 'synced' : 'failed',
  };
}

export function createTradesService(deps: {
  db: Db;
  repo: TradesRepository;
  balances: Pick<BalancesRepository, 'latest'>;
  gateway: Pick<VenueGateway, 'markets' | 'myTrades' | 'balance'>;
  credentials: Pick<CredentialsService, 'resolve' | 'use'>;
  clock: Clock;
  logger: Logger;
  events: Pick<EventPublisher<typeof EXCHANGE_EVENTS>, 'user'>;
  /** How far back a market's first sync reaches. */
  horizonDays: number;
}) {
  const { repo, gateway, clock } = deps;

  /**
   * The named symbol, or the markets of the currencies the user holds (latest snapshot, else live),
   * largest holdings first, at most MAX_SYMBOLS_PER_SYNC.
   */
  async function symbolsToSync(
    venue: Venue,
    markets: VenueMarket[],
    symbol: string | undefined,
    userId: string,
    credentialId: string,
    keys: VenueCredentials,
  ) {
    if (symbol) {
      const market = resolveSymbol(markets, symbol);
      if (!market) throw notFound(`${venue} does not list ${symbol}`);
      return [market.symbol];
    }
    const snapshot =
      (await deps.balances.latest(userId, venue, credentialId)) ?? (await deps.balances.latest(userId, venue));
    const held = snapshot ? snapshot.rows : await gateway.balance(venue, keys);
    return symbolsForHoldings(markets, held, MAX_SYMBOLS_PER_SYNC);
  }

  return {
    async sync(
      venue: Venue,
      options: { credentialId?: string; symbol?: string; since?: Date; limit: number },
      ctx: AccountActor,
    ): Promise<TradeSync> {
      const credential = await deps.credentials.resolve(ctx.id, venue, options.credentialId);
      const context = { userId: ctx.id, venue, credentialId: credential.id };
      let synced = 0;
      let duplicate = 0;
      let symbols: string[] = [];
      const markets: MarketSync[] = [];
      let failure: VenueError | undefined;
      const horizonStart = new Date(clock.now().getTime() - deps.horizonDays * 86_400_000);
      try {
        // Markets first and without the key: a venue outage says nothing about the credential.
        const venueMarkets = await gateway.markets(venue);
        await deps.credentials.use(credential, async (keys) => {
          symbols = await symbolsToSync(venue, venueMarkets, options.symbol, ctx.id, credential.id, keys);
          for (const symbol of symbols) {
            const page = startPage({
              venue,
              since: options.since,
              newest: await repo.newest(credential.id, symbol),
              horizonStart,
              limit: options.limit,
            });
            const fetched = await gateway.myTrades(venue, keys, symbol, page);
            const rows = fetched.map((t) => toRow(t, context)).filter((r): r is NewTrade => r !== undefined);
            if (rows.length < fetched.length)
              deps.logger.warn(
                { venue, symbol, skipped: fetched.length - rows.length },
                'venue sent trades without id or time',
              );
            const inserted = await repo.insertNew(rows);
            synced += inserted;
            duplicate += rows.length - inserted;
            const { hasMore, cursor } = nextCursor(venue, page, fetched);
            markets.push({
              symbol,
              fetched: fetched.length,
              synced: inserted,
              duplicate: rows.length - inserted,
              hasMore,
              nextCursor: cursor,
            });
          }
        });
      } catch (error) {
        if (!(error instanceof VenueError)) throw error;
        failure = error;
      }
      const hasMore = markets.some((m) => m.hasMore);
      const now = clock.now();
      await audit(
        {
          ...auditActor(ctx),
          action: 'exchange.trades.sync',
          subjectUserId: ctx.id,
          targetType: 'exchange_credential',
          targetId: credential.id,
          details: {
            exchange: venue,
            success: !failure,
            symbols,
            trades_synced: synced,
            trades_duplicate: duplicate,
            has_more: hasMore,
            error_type: failure?.errorType ?? null,
          },
          ip: ctx.ip,
        },
        now,
        deps.db,
      );
      await deps.events.user(ctx.id, 'trades.synced', {
        exchange: venue,
        credential_id: credential.id,
        success: !failure,
        symbols_synced: symbols,
        trades_synced: synced,
        trades_duplicate: duplicate,
        error_type: failure?.errorType ?? null,
      });
      if (synced > 0)
        await deps.events.user(ctx.id, 'portfolio.updated', { exchange: venue, cause: 'trades', stored: synced });
      return {
        success: !failure,
        userId: ctx.id,
        venue,
        symbol: options.symbol ? (symbols[0] ?? null) : null,
        symbols,
        tradesSynced: synced,
        tradesDuplicate: duplicate,
        hasMore,
        markets,
        syncedAt: now,
        error: failure ? String(failure.detail) : null,
        errorType: failure?.errorType ?? null,
      };
    },

    async list(query: {
      userId: string;
      venue: Venue;
      symbol?: string;
      start?: Date;
      end?: Date;
      limit: number;
      offset: number;
    }): Promise<TradePage> {
      const { rows, total } = await repo.list(
        { userId: query.userId, exchange: query.venue, symbol: query.symbol, start: query.start, end: query.end },
        { limit: query.limit, offset: query.offset },
      );
      return {
        venue: query.venue,
        symbol: query.symbol ? (rows[0]?.symbol ?? query.symbol.toUpperCase()) : null,
        rows,
        total,
        hasMore: query.offset + rows.length < total,
      };
    },

    async stats(query: { userId: string; venue?: Venue; start?: Date; end?: Date }): Promise<TradeStatistics> {
      const stats = await repo.stats({
        userId: query.userId,
        exchange: query.venue,
        start: query.start,
        end: query.end,
      });
      return { stats, start: query.start ?? null, end: query.end ?? null, venue: query.venue ?? null };
    },
  };
}
