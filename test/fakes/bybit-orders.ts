// Bybit's order endpoints for the Bybit fake (PROTOCOLS B11), category spot: order/create with
// `orderLinkId` (at most 36 characters, unique among active orders), order/realtime by orderId or
// orderLinkId (open orders; `openOnly=1` the recent closed ones), order/history (closed orders),
// order/cancel by either. Caveat: the retCodes for a too-long or duplicate
// orderLinkId and for an unknown order (10001, 170141, 170213) are not confirmed against Bybit's pages.
// A market order (or a limit crossing the touch) fills at once, in two executions; a resting limit
// fills when the fake is told the price crossed it. A spot market buy's `qty` is in the quote coin
// unless `marketUnit` is `baseCoin`. Orders show `orderStatus` (New, PartiallyFilled, Filled,
// Cancelled), `cumExecQty`, `cumExecValue`, `cumExecFee` with `cumFeeDetail`, `avgPrice` and
// `leavesQty`; the executions are in execution/list under their `execId`, with the order's ids,
// fees in the coin received.
import { Decimal } from 'decimal.js';
import {
  crossesOnArrival,
  fillNow,
  ordersOf,
  placeOrder,
  type FillRules,
  type LoopbackReply,
  type VenueAccount,
  type VenueOrder,
} from './venue-loopback.ts';

/** Bybit's spot VIP 0: 0.10% taker and maker, in the coin received; execution ids are UUIDs. */
export const BYBIT_FILLS: FillRules = {
  taker: '0.001',
  maker: '0.001',
  feeIn: 'received',
  tradeId: () => crypto.randomUUID(),
};

const STATUS: Record<VenueOrder['status'], string> = { open: 'New', filled: 'Filled', canceled: 'Cancelled' };

const symbolOf = (o: { base: string; quote: string }) => `${o.base}${o.quote}`;
const envelope = (result: unknown, retCode = 0, retMsg = 'OK'): LoopbackReply => ({
  body: { retCode, retMsg, result, retExtInfo: {}, time: Date.now() },
});

function render(order: VenueOrder) {
  const filled = new Decimal(order.filled);
  const partly = order.status === 'open' && !filled.isZero();
  const leaves = order.status === 'open' ? new Decimal(order.amount).minus(filled) : new Decimal(0);
  return {
    orderId: order.id,
    orderLinkId: order.clientId,
    blockTradeId: '',
    symbol: symbolOf(order),
    price: order.price ?? '0',
    qty: order.amount,
    side: order.side === 'buy' ? 'Buy' : 'Sell',
    isLeverage: '0',
    positionIdx: 0,
    orderStatus: partly ? 'PartiallyFilled' : STATUS[order.status],
    cancelType: order.status === 'canceled' ? 'CancelByUser' : 'UNKNOWN',
    rejectReason: 'EC_NoError',
    avgPrice: filled.isZero() ? '' : new Decimal(order.cost).dividedBy(filled).toFixed(),
    leavesQty: leaves.toFixed(),
    leavesValue: order.price === null ? '0' : leaves.times(order.price).toFixed(),
    cumExecQty: filled.toFixed(),
    cumExecValue: new Decimal(order.cost).toFixed(),
    cumExecFee: new Decimal(order.fee).toFixed(),
    ...(filled.isZero() ? {} : { cumFeeDetail: { [order.feeCurrency]: new Decimal(order.fee).toFixed() } }),
    marketUnit: order.type === 'market' ? (order.quoteSized ? 'quoteCoin' : 'baseCoin') : '',
    timeInForce: order.type === 'market' ? 'IOC' : 'GTC',
    orderType: order.type === 'limit' ? 'Limit' : 'Market',
    stopOrderType: '',
    triggerPrice: '0',
    reduceOnly: false,
    closeOnTrigger: false,
    smpType: 'None',
    createdTime: String(order.time),
    updatedTime: String(order.updated),
  };
}

/** Answers an order endpoint, or undefined for any other path. */
export function bybitOrders(
  method: string,
  path: string,
  query: URLSearchParams,
  body: string,
  account: VenueAccount,
  markets: readonly { base: string; quote: string }[],
): LoopbackReply | undefined {
  const input = method === 'POST' ? (JSON.parse(body || '{}') as Record<string, string>) : Object.fromEntries(query);
  if (!['/v5/order/create', '/v5/order/realtime', '/v5/order/history', '/v5/order/cancel'].includes(path))
    return undefined;
  if (input.category !== 'spot') return envelope({ list: [], nextPageCursor: '', category: input.category });
  const find = () =>
    ordersOf(account).find(
      (o) => (input.orderId && o.id === input.orderId) || (input.orderLinkId && o.clientId === input.orderLinkId),
    );
  if (method === 'POST' && path === '/v5/order/create') {
    const clientId = input.orderLinkId ?? '';
    if (clientId.length > 36) return envelope({}, 10001, 'The length of orderLinkId cannot exceed 36 characters.');
    const market = markets.find((m) => symbolOf(m) === input.symbol);
    if (!market) return envelope({}, 10001, 'params error: symbol invalid');
    const placed = placeOrder(
      account,
      {
        clientId,
        base: market.base,
        quote: market.quote,
        side: input.side === 'Sell' ? 'sell' : 'buy',
        type: input.orderType === 'Market' ? 'market' : 'limit',
        amount: String(input.qty ?? '0'),
        price: input.price === undefined ? null : String(input.price),
        // A spot market buy's qty is what it spends unless it says baseCoin (a sell's is always base).
        quoteSized:
          input.orderType === 'Market' &&
          (input.marketUnit === 'quoteCoin' || (input.marketUnit !== 'baseCoin' && input.side === 'Buy')),
      },
      String(1_900_000_000_000_000 + Math.floor(Math.random() * 1e9)),
    );
    if (!placed) return envelope({}, 170141, 'Duplicate clientOrderId.');
    if (crossesOnArrival(placed)) fillNow(account, placed, BYBIT_FILLS);
    return envelope({ orderId: placed.id, orderLinkId: placed.clientId });
  }
  // realtime: open orders (openOnly=1: the recent closed ones); history: closed ones.
  if (method === 'GET' && (path === '/v5/order/realtime' || path === '/v5/order/history')) {
    const closed = path === '/v5/order/history' || input.openOnly === '1';
    const order = find();
    const listed = order && (order.status === 'open') !== closed ? [render(order)] : [];
    return envelope({ category: 'spot', nextPageCursor: '', list: listed });
  }
  if (method === 'POST' && path === '/v5/order/cancel') {
    const order = find();
    if (order?.status !== 'open') return envelope({}, 170213, 'Order does not exist.');
    order.status = 'canceled';
    order.updated = Date.now();
    return envelope({ orderId: order.id, orderLinkId: order.clientId });
  }
  return undefined;
}
