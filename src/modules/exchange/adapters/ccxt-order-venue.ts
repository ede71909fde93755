// The live OrderVenue (docs/decisions/210, 212): ccxt with the user's credential, through the venue's
// shared budget like every other venue call. The client order id goes in the venue's own parameter
// (src/platform/client-order-ids.ts). What an error means for the order is decided here, once: an
// answer that did not come (timeout, reset, a 5xx such as Binance's -1007) is `unknown`, never a
// refusal (every 5xx, whatever its body: ccxt-errors.ts), so the caller looks the order up rather than
// sending it again.
import type { Exchange, Order, Trade } from 'ccxt';
import { clientOrderIdRule } from '../../../platform/client-order-ids.ts';
import {
  SIGN_WITHIN_MS,
  type CancelResult,
  type LookupResult,
  type OrderVenue,
  type ResolvedCredential,
  type SubmitResult,
  type VenueFill,
  type VenueOrderRequest,
  type VenueOrderState,
  type VenueOrderStatus,
} from '../../../platform/order-venue.ts';
import { BudgetRefusal, UserShareRefusal } from '../../../platform/venue-budget/venue-budget.ts';
import { isVenue, type Venue } from '../venues.domain.ts';
import type { CcxtClients } from './ccxt-clients.ts';
import type { CredentialClients, CredentialVersion } from './ccxt-credential-clients.ts';
import { outcomeUnknown, toVenueError, venueMessage } from './ccxt-errors.ts';
import { SigningDeadlinePassed, signedBy } from './signing-deadline.ts';
import { cancelByClientId, findByClientId, ListingNotEnded, tradesOfOrder } from './venue-order-lookups.ts';

type ErrorClass = abstract new (...args: never[]) => Error;
interface OrderErrorClasses {
  OrderNotFound: ErrorClass;
  InvalidNonce: ErrorClass;
  RateLimitExceeded: ErrorClass;
  DDoSProtection: ErrorClass;
  NetworkError: ErrorClass;
  BadResponse: ErrorClass;
  ExchangeError: ErrorClass;
}

type Outcome = { kind: 'unknown'; reason: string } | { kind: 'refused'; reason: string } | { kind: 'not_found' };

const STATUS: Record<string, VenueOrderStatus> = {
  open: 'open',
  closed: 'filled',
  canceled: 'canceled',
  cancelled: 'canceled',
  expired: 'expired',
  rejected: 'rejected',
};

const text = (value: unknown): string | null =>
  value === undefined || value === null || value === '' ? null : String(value);

function fillOf(trade: Trade, orderTime: number | undefined): VenueFill | null {
  const id = text(trade.id);
  const price = text(trade.price);
  const amount = text(trade.amount);
  if (!id || !price || !amount) return null;
  return {
    tradeId: id,
    price,
    amount,
    fee: text(trade.fee?.cost) ?? '0',
    feeCurrency: text(trade.fee?.currency),
    at: new Date(trade.timestamp ?? orderTime ?? Date.now()),
    maker: trade.takerOrMaker === 'maker',
  };
}

function stateOf(order: Order, trades: readonly Trade[]): VenueOrderState {
  const raw = (order.info ?? {}) as Record<string, unknown>;
  const fills = trades.map((t) => fillOf(t, order.timestamp)).filter((f): f is VenueFill => f !== null);
  const reason = order.status === 'rejected' || order.status === 'expired' ? text(raw.status) : null;
  return {
    venueOrderId: String(order.id),
    status: STATUS[order.status ?? 'open'] ?? 'open',
    filled: text(order.filled) ?? '0',
    averagePrice: text(order.average),
    fills,
    ...(reason ? { reason } : {}),
  };
}

export interface LiveOrderVenueDeps {
  clients: CcxtClients;
  /** The credential's instances, kept between calls (decision 261). */
  credentialClients: Pick<CredentialClients, 'get'>;
  /** The module's clock: a send's signing deadline runs from its claim on it (decision 1310). */
  now(): number;
  /** The credential as stored now, read before every call: it must be the user's, for that venue. */
  credential(userId: string, venue: Venue, credentialId: string): Promise<CredentialVersion>;
  /** A credential this module read for the request (VenueOrderRequest.credential), or undefined. */
  readBefore(credential: ResolvedCredential): CredentialVersion | undefined;
}

export function createLiveOrderVenue(deps: LiveOrderVenueDeps): OrderVenue {
  const { clients } = deps;

  async function classify(venue: string, error: unknown): Promise<Outcome> {
    // The budget refused before anything left (the venue's, the user's share or the key's limit), or the send
    // could not be signed in time (decision 1310): nothing was sent.
    if (error instanceof BudgetRefusal || error instanceof UserShareRefusal || error instanceof SigningDeadlinePassed)
      return { kind: 'refused', reason: error.message };
    // A listing read to its bound without the order: it may be further on (decision 1290).
    if (error instanceof ListingNotEnded) return { kind: 'unknown', reason: error.message };
    const c = (await clients.errorClasses()) as unknown as OrderErrorClasses;
    const message = error instanceof Error ? venueMessage('', error.message).text : String(error);
    if (error instanceof c.OrderNotFound) return { kind: 'not_found' };
    // 429/418: the venue turned the request away unexecuted.
    if (error instanceof c.RateLimitExceeded || error instanceof c.DDoSProtection)
      return { kind: 'refused', reason: `rate limited: ${message}` };
    // The venue refused the request's nonce or time before reading it (Kraken's EAPI:Invalid nonce,
    // Binance's -1021): nothing was placed, and nothing is sent again (decision 280).
    if (error instanceof c.InvalidNonce)
      return {
        kind: 'refused',
        reason: `the venue refused the request's nonce or time, so nothing was placed: ${message}`,
      };
    if (error instanceof c.NetworkError || error instanceof c.BadResponse)
      return { kind: 'unknown', reason: `no answer from the venue: ${message}` };
    // A 5xx whatever its body said, or the venue's own "timed out" or "internal error" (decision 1250).
    if (outcomeUnknown(venue, error)) return { kind: 'unknown', reason: `no answer from the venue: ${message}` };
    if (error instanceof c.ExchangeError) return { kind: 'refused', reason: message };
    return { kind: 'unknown', reason: `no answer from the venue: ${message}` };
  }

  /** The credential the placing request read just before storing the order, when it is that order's. */
  function readFor(order: VenueOrderRequest): CredentialVersion | undefined {
    const version = order.credential ? deps.readBefore(order.credential) : undefined;
    const matches =
      version?.id === order.credentialId && version.userId === order.userId && version.venue === order.exchange;
    return matches ? version : undefined;
  }

  async function withClient<T>(order: VenueOrderRequest, run: (exchange: Exchange) => Promise<T>): Promise<T> {
    if (!isVenue(order.exchange)) throw new Error(`unknown venue ${order.exchange}`);
    if (!order.credentialId) throw new Error('a live order needs a credential');
    const credential = readFor(order) ?? (await deps.credential(order.userId, order.exchange, order.credentialId));
    return run(await deps.credentialClients.get(credential));
  }

  /** The order's fills: those its answer carried when they add up, else the venue's list for the order. */
  async function fillsOf(exchange: Exchange, venue: string, order: Order, symbol: string): Promise<Trade[]> {
    const filled = Number(order.filled ?? 0);
    if (!(filled > 0)) return [];
    const carried = order.trades ?? [];
    const sum = carried.reduce((total, t) => total + Number(t.amount ?? 0), 0);
    if (carried.length > 0 && Math.abs(sum - filled) < 1e-12 && carried.every((t) => t.id)) return carried;
    return tradesOfOrder(exchange, venue, order, symbol);
  }

  /**
   * What became of an order the venue accepted. Kraken, Coinbase, OKX and Bybit answer a send with the
   * order's ids only (no status): the order is looked up at once, so a market order reads filled with its
   * fills. Should that lookup fail, the answer stands (open, nothing filled) and reconcile asks again.
   */
  async function acceptedState(exchange: Exchange, order: VenueOrderRequest, placed: Order): Promise<VenueOrderState> {
    if (placed.status === undefined || placed.status === null) {
      try {
        const known = { venueOrderId: text(placed.id), createdAt: order.createdAt };
        const found = await findByClientId(exchange, order.exchange, order.symbol, order.clientOrderId, known);
        if (found) return stateOf(found, await fillsOf(exchange, order.exchange, found, order.symbol));
      } catch {
        // Left to reconcile.
      }
      return stateOf(placed, []);
    }
    // The order is the venue's now; reading its fills may fail without changing that.
    const trades = await fillsOf(exchange, order.exchange, placed, order.symbol).catch(() => []);
    return stateOf(placed, trades);
  }

  return {
    async submit(order): Promise<SubmitResult> {
      const rule = clientOrderIdRule(order.exchange);
      try {
        return await withClient(order, async (exchange) => {
          const params: Record<string, unknown> = { [rule.param]: order.clientOrderId };
          if (order.type === 'limit') params.timeInForce = order.timeInForce;
          if (rule.deadline) {
            // What is left of the window since the claim (the module's clock), from now on the venue's (the wall's).
            const leftMs = (order.sentAt?.getTime() ?? deps.now()) + rule.deadline.aheadMs - deps.now();
            params[rule.deadline.param] = new Date(Date.now() + leftMs).toISOString();
          }
          let placed: Order;
          const price = order.price === null ? await marketBuyPrice(exchange, order) : Number(order.price);
          const create = () =>
            exchange.createOrder(order.symbol, order.type, order.side, Number(order.amount), price, params);
          try {
            placed = order.sentAt
              ? await signedBy(order.sentAt.getTime() + SIGN_WITHIN_MS, deps.now, create)
              : await create();
          } catch (error) {
            const outcome = await classify(order.exchange, error);
            return outcome.kind === 'not_found' ? { kind: 'refused', reason: 'the venue refused the order' } : outcome;
          }
          return { kind: 'accepted', state: await acceptedState(exchange, order, placed) };
        });
      } catch (error) {
        // Before the venue was asked (the credential, the markets): nothing was sent.
        return { kind: 'refused', reason: error instanceof Error ? error.message : String(error) };
      }
    },

    async lookup(order): Promise<LookupResult> {
      try {
        return await withClient(order, async (exchange) => {
          // The order's venue id and creation time, where a venue without lookups by client id looks.
          const found = await findByClientId(exchange, order.exchange, order.symbol, order.clientOrderId, order);
          if (!found) return { kind: 'not_found' } as const;
          const trades = await fillsOf(exchange, order.exchange, found, order.symbol);
          return { kind: 'found', state: stateOf(found, trades) };
        });
      } catch (error) {
        const outcome = await classify(order.exchange, error);
        return outcome.kind === 'refused' ? { kind: 'unknown', reason: outcome.reason } : outcome;
      }
    },

    async cancel(order): Promise<CancelResult> {
      try {
        return await withClient(order, async (exchange) => {
          const canceled = await cancelByClientId(exchange, order.exchange, order.symbol, order.clientOrderId, order);
          if (!canceled) return { kind: 'not_found' } as const;
          const trades = await fillsOf(exchange, order.exchange, canceled, order.symbol);
          return { kind: 'done', state: stateOf(canceled, trades) };
        });
      } catch (error) {
        const outcome = await classify(order.exchange, error);
        return outcome.kind === 'refused' ? { kind: 'unknown', reason: outcome.reason } : outcome;
      }
    },
  };
}

/**
 * Coinbase sizes a market buy by what it spends (`quote_size`, PROTOCOLS B9): ccxt makes it amount ×
 * price, so the ask is asked first (decision 275). Other venues take a market order's base amount.
 */
async function marketBuyPrice(exchange: Exchange, order: VenueOrderRequest): Promise<number | undefined> {
  if (order.exchange !== 'coinbase' || order.type !== 'market' || order.side !== 'buy') return undefined;
  const ticker = await exchange.fetchTicker(order.symbol);
  const price = ticker.ask ?? ticker.last;
  if (!price) throw new Error(`coinbase named no price for ${order.symbol}: a market buy needs one`);
  return price;
}

/** A market's order limits as the venue states them, and its last price; null when the venue does not list it. */
export interface OrderMarket {
  symbol: string;
  active: boolean;
  minAmount: number | null;
  minCost: number | null;
  amountStep: number | null;
  priceStep: number | null;
}

const TICK_SIZE = 4;

/** The market's limits from ccxt's loaded markets (no call when they are cached). */
export async function orderMarketOf(clients: CcxtClients, venue: Venue, symbol: string): Promise<OrderMarket | null> {
  let exchange: Exchange;
  try {
    exchange = await clients.markets(venue);
  } catch (error) {
    // Loading the markets asks the venue: its outage is a 502/503/504 like any venue call, never a 500.
    throw toVenueError(await clients.errorClasses(), venue, error, undefined);
  }
  // BTC/USDT, btc-usdt or the venue's own id (BTCUSDT) all name the market.
  const upper = symbol.trim().toUpperCase();
  const byId = (exchange as unknown as { markets_by_id?: Record<string, { symbol: string }[]> }).markets_by_id;
  const unifiedSymbol = exchange.markets?.[upper.replace('-', '/')]
    ? upper.replace('-', '/')
    : (byId?.[upper]?.[0]?.symbol ?? byId?.[upper.replace(/[-/]/g, '')]?.[0]?.symbol);
  const market = unifiedSymbol ? exchange.markets?.[unifiedSymbol] : undefined;
  if (!market) return null;
  // ccxt states precision as a tick (TICK_SIZE mode) or as a count of decimals.
  const step = (value: number | undefined) =>
    value === undefined || value === null
      ? null
      : exchange.precisionMode === TICK_SIZE
        ? Number(value)
        : Number(`1e-${Number(value)}`);
  const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
  return {
    symbol: market.symbol,
    active: market.active !== false,
    minAmount: num(market.limits?.amount?.min),
    minCost: num(market.limits?.cost?.min),
    amountStep: step(market.precision?.amount),
    priceStep: step(market.precision?.price),
  };
}
