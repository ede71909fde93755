// Finding and cancelling an order by its client order id, per venue (docs/decisions/212, 256): ccxt's
// fetchOrder and cancelOrder take the client id as a parameter on Binance and OKX only. Kraken's
// fetchOrder sends it as `userref` (an integer), so it is listed among open, then closed, orders with
// `cl_ord_id` (with `trades=true`, so the order names its trades); Coinbase has no lookup by client id,
// so its orders are listed and matched, and cancelled by the venue id found; Bybit's fetchOrder fails
// on an order it does not find (it formats the missing venue id), so its open orders, then its order
// history, are asked by `orderLinkId`. A listing that holds no such order answers null. An order's
// trades are asked per venue too (decision 275).
import type { Exchange, Order, Trade } from 'ccxt';
import { clientOrderIdRule } from '../../../platform/client-order-ids.ts';

type BybitList = (request: object) => Promise<{ result?: { list?: Record<string, unknown>[] } }>;
type Find = (exchange: Exchange, symbol: string, clientOrderId: string) => Promise<Order | null>;

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
  coinbase: async (exchange, symbol, clientOrderId) =>
    matching(await exchange.fetchOrders(symbol, undefined, undefined), clientOrderId),
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
 * "no such order" itself does so with ccxt's OrderNotFound, thrown to the caller like any error.
 */
export function findByClientId(
  exchange: Exchange,
  venue: string,
  symbol: string,
  clientOrderId: string,
): Promise<Order | null> {
  const find = FIND[venue];
  if (find) return find(exchange, symbol, clientOrderId);
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
 * cancels by venue id only: the order is found first.
 */
export async function cancelByClientId(
  exchange: Exchange,
  venue: string,
  symbol: string,
  clientOrderId: string,
): Promise<Order | null> {
  let answer: Order;
  if (venue === 'coinbase') {
    const found = await findByClientId(exchange, venue, symbol, clientOrderId);
    if (!found) return null;
    answer = await exchange.cancelOrder(String(found.id), symbol);
  } else {
    const param = clientOrderIdRule(venue).lookupParam;
    answer = await exchange.cancelOrder(undefined as unknown as string, symbol, { [param]: clientOrderId });
  }
  if (CANCEL_ANSWERS_THE_ORDER.has(venue)) return answer;
  return (await findByClientId(exchange, venue, symbol, clientOrderId)) ?? answer;
}
