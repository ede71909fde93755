// Finding and cancelling an order by its client order id, per venue (docs/decisions/212, 256): ccxt's
// fetchOrder and cancelOrder take the client id as a parameter on Binance and OKX only. Kraken's
// fetchOrder sends it as `userref` (an integer), so it is listed among open, then closed, orders with
// `cl_ord_id` (with `trades=true`, so the order names its trades); Coinbase has no lookup by client id,
// so an order is asked by its venue id once the venue named it, else its orders are listed and matched
// (decision 1290), and it is cancelled by the venue id found; Bybit's fetchOrder fails
// on an order it does not find (it formats the missing venue id), so its open orders, then its order
// history, are asked by `orderLinkId`. A listing that holds no such order answers null. An order's
// trades are asked per venue too (decision 275).
import type { Exchange, Order, Trade } from 'ccxt';
import { clientOrderIdRule } from '../../../platform/client-order-ids.ts';
import type { VenueOrderRequest } from '../../../platform/order-venue.ts';

type BybitList = (request: object) => Promise<{ result?: { list?: Record<string, unknown>[] } }>;
type CoinbaseList = (
  request: object,
) => Promise<{ orders?: Record<string, unknown>[]; has_next?: boolean; cursor?: string }>;

/** What is known of an order beside its client id: its venue id once the venue named it, when it was stored. */
export type KnownOrder = Pick<VenueOrderRequest, 'venueOrderId' | 'createdAt'>;

type Find = (exchange: Exchange, symbol: string, clientOrderId: string, known: KnownOrder) => Promise<Order | null>;

/**
 * A listing read as far as a lookup may read it, without the order and without its end: the order may be
 * further on. Neither found nor "not found", which would reject an order the venue may hold.
 */
export class ListingNotEnded extends Error {}

/** A page of Coinbase's orders: as ccxt pages its fetchOrders (unasked, it asks 100). */
const COINBASE_PAGE = 1000;
/** Pages one lookup reads at most: 10,000 orders on the pair in the window around the order's creation. */
export const COINBASE_PAGES = 10;
/**
 * The window, either side of the order's creation, in which Coinbase created it: the order is stored just
 * before its send, and a request's JWT lives 120 s (PROTOCOLS B9), which bounds both the request's delay
 * and how far our clock and the venue's may differ. A quarter of an hour on each side is ample.
 */
const COINBASE_WINDOW_MS = 15 * 60_000;

/**
 * Coinbase: the order by its venue id when the venue named it (its client id checked); else the pair's
 * orders created around it, newest first, page after page until it is found or the listing ends.
 */
async function findAtCoinbase(
  exchange: Exchange,
  symbol: string,
  clientOrderId: string,
  known: KnownOrder,
): Promise<Order | null> {
  if (known.venueOrderId) {
    const order = await exchange.fetchOrder(known.venueOrderId, symbol);
    if (order.clientOrderId === clientOrderId) return order;
    // Another order by that id: the listing decides.
  }
  const market = exchange.market(symbol);
  const list = (exchange as unknown as Record<'v3PrivateGetBrokerageOrdersHistoricalBatch', CoinbaseList>)
    .v3PrivateGetBrokerageOrdersHistoricalBatch;
  const request: Record<string, unknown> = { product_ids: [market.id], limit: COINBASE_PAGE };
  if (known.createdAt) {
    const at = known.createdAt.getTime();
    request.start_date = new Date(at - COINBASE_WINDOW_MS).toISOString();
    request.end_date = new Date(at + COINBASE_WINDOW_MS).toISOString();
  }
  for (let page = 0; page < COINBASE_PAGES; page += 1) {
    const answer = await list.call(exchange, request);
    const raw = (answer.orders ?? []).find((o) => o.client_order_id === clientOrderId);
    if (raw) return exchange.parseOrder(raw, market);
    // Coinbase says whether more follow; an answer that does not say has more when it names a cursor.
    if (!(answer.has_next ?? Boolean(answer.cursor))) return null;
    if (!answer.cursor) break;
    request.cursor = answer.cursor;
  }
  throw new ListingNotEnded(
    `coinbase listed ${COINBASE_PAGES} pages of ${symbol} orders without client order id ${clientOrderId} and more follow`,
  );
}

const matching = (orders: readonly Order[], clientOrderId: string) =>
  orders.find((o) => o.clientOrderId === clientOrderId) ?? null;

const FIND: Partial<Record<string, Find>> = {
  kraken: async (exchange, symbol, clientOrderId) => {
    const params = { cl_ord_id: clientOrderId, trades: true };
    const open = await exchange.fetchOpenOrders(symbol, undefined, undefined, params);
    return (
      matching(open, clientOrderId) ??
      matching(await exchange.fetchClosedOrders(symbol, undefined, undefined, params), clientOrderId)
    );
  },
  coinbase: findAtCoinbase,
  bybit: async (exchange, symbol, clientOrderId) => {
    const market = exchange.market(symbol);
    const api = exchange as unknown as Record<'privateGetV5OrderRealtime' | 'privateGetV5OrderHistory', BybitList>;
    const request = { category: 'spot', symbol: market.id, orderLinkId: clientOrderId };
    for (const list of [api.privateGetV5OrderRealtime, api.privateGetV5OrderHistory]) {
      const [raw] = (await list.call(exchange, request)).result?.list ?? [];
      if (raw) return exchange.parseOrder(raw, market);
    }
    return null;
  },
};

/**
 * The order with this client id at the venue; null when a listing holds none. A venue that answers
 * "no such order" itself does so with ccxt's OrderNotFound, thrown to the caller like any error; a
 * listing read to its bound without its end throws ListingNotEnded.
 */
export function findByClientId(
  exchange: Exchange,
  venue: string,
  symbol: string,
  clientOrderId: string,
  known: KnownOrder = {},
): Promise<Order | null> {
  const find = FIND[venue];
  if (find) return find(exchange, symbol, clientOrderId, known);
  const param = clientOrderIdRule(venue).lookupParam;
  return exchange.fetchOrder(undefined as unknown as string, symbol, { [param]: clientOrderId });
}

/**
 * The trades of an order the venue says has fills. ccxt's fetchOrderTrades wants the order's trade ids
 * on Kraken (its listings name them when asked with `trades=true`) and has none on Coinbase, whose fills
 * are asked by `order_ids`; OKX and Bybit ask their fills by the order id.
 */
export async function tradesOfOrder(exchange: Exchange, venue: string, order: Order, symbol: string): Promise<Trade[]> {
  const id = String(order.id);
  if (venue === 'kraken') {
    const ids = (order.trades ?? []).map((t) => t.id).filter((t): t is string => typeof t === 'string' && t !== '');
    // An order with fills but no trade ids would be stored filled without them: better asked again later.
    if (ids.length === 0) throw new Error('kraken named no trades of a filled order');
    return exchange.fetchOrderTrades(id, symbol, undefined, undefined, { trades: ids });
  }
  if (venue === 'coinbase') return exchange.fetchMyTrades(symbol, undefined, undefined, { order_ids: [id] });
  return exchange.fetchOrderTrades(id, symbol);
}

/** Venues whose cancel answer is the whole order, its status included. */
const CANCEL_ANSWERS_THE_ORDER = new Set(['binance', 'binanceus']);

/**
 * Cancels the order with this client id and answers its state after (looked up again where the
 * venue's cancel answer carries no status); null when the venue knows no order by it. Coinbase
 * cancels by venue id only: the order is found first, and asked by that id after.
 */
export async function cancelByClientId(
  exchange: Exchange,
  venue: string,
  symbol: string,
  clientOrderId: string,
  known: KnownOrder = {},
): Promise<Order | null> {
  let answer: Order;
  let after = known;
  if (venue === 'coinbase') {
    const found = await findByClientId(exchange, venue, symbol, clientOrderId, known);
    if (!found) return null;
    answer = await exchange.cancelOrder(String(found.id), symbol);
    after = { ...known, venueOrderId: String(found.id) };
  } else {
    const param = clientOrderIdRule(venue).lookupParam;
    answer = await exchange.cancelOrder(undefined as unknown as string, symbol, { [param]: clientOrderId });
  }
  if (CANCEL_ANSWERS_THE_ORDER.has(venue)) return answer;
  return (await findByClientId(exchange, venue, symbol, clientOrderId, after)) ?? answer;
}
