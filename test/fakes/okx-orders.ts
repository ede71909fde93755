// OKX's order endpoints for the OKX fake (PROTOCOLS B10): trade/order and trade/batch-orders (ccxt's
// default) with `clOrdId` of 1 to 32 letters and digits (else sCode 51000), unique among open
// orders (51016); trade/order?instId=&clOrdId= (or ordId) to query, 51603 when unknown;
// trade/cancel-order by ordId or clOrdId, 51400 when the order is not open. A market order (or a limit
// crossing the touch) fills at once, in two fills; a resting limit fills when the fake is told the
// price crossed it. A spot market buy's `sz` is in the quote currency unless `tgtCcy` is `base_ccy`.
// Orders show `state` (live, partially_filled, filled, canceled), `accFillSz`, `avgPx`, the last fill's
// `fillPx`/`fillSz`/`tradeId`, and `fee` (negative, charged in the currency received); the fills are in
// trade/fills and trade/fills-history under their `tradeId`.
import { Decimal } from 'decimal.js';
import {
  crossesOnArrival,
  fillNow,
  fillsOfOrder,
  ordersOf,
  placeOrder,
  type FillRules,
  type LoopbackReply,
  type VenueAccount,
  type VenueOrder,
} from './venue-loopback.ts';

let tradeCounter = 0;

/** OKX's regular tier: 0.10% taker, 0.08% maker, in the currency received; trade ids are numbers. */
export const OKX_FILLS: FillRules = {
  taker: '0.001',
  maker: '0.0008',
  feeIn: 'received',
  tradeId: () => String(800_000_000 + ++tradeCounter),
};

const STATE: Record<VenueOrder['status'], string> = { open: 'live', filled: 'filled', canceled: 'canceled' };

const CLIENT_ID = /^[A-Za-z0-9]{1,32}$/;
const instId = (o: { base: string; quote: string }) => `${o.base}-${o.quote}`;

function render(order: VenueOrder, tag: string, account: VenueAccount) {
  const at = String(order.time);
  const filled = new Decimal(order.filled);
  const last = fillsOfOrder(account, order).at(-1);
  const partly = order.status === 'open' && !filled.isZero();
  return {
    instType: 'SPOT',
    instId: instId(order),
    ccy: '',
    ordId: order.id,
    clOrdId: order.clientId,
    tag,
    px: order.price ?? '',
    sz: order.amount,
    pnl: '0',
    ordType: order.type,
    side: order.side,
    posSide: 'net',
    tdMode: 'cash',
    tgtCcy: order.type === 'market' && order.side === 'buy' ? (order.quoteSized ? 'quote_ccy' : 'base_ccy') : '',
    accFillSz: filled.toFixed(),
    fillPx: last?.price ?? '',
    tradeId: last?.id ?? '',
    fillSz: last?.amount ?? '0',
    fillTime: last ? String(last.time) : '',
    state: partly ? 'partially_filled' : STATE[order.status],
    avgPx: filled.isZero() ? '' : new Decimal(order.cost).dividedBy(filled).toFixed(),
    lever: '',
    feeCcy: order.feeCurrency,
    fee: new Decimal(order.fee).negated().toFixed(),
    uTime: String(order.updated),
    cTime: at,
  };
}

const answer = (code: string, msg: string, data: unknown[]): LoopbackReply => ({ body: { code, msg, data } });

function place(
  account: VenueAccount,
  entry: Record<string, unknown>,
  markets: readonly { base: string; quote: string }[],
) {
  const clientId = String(entry.clOrdId ?? '');
  const tag = String(entry.tag ?? '');
  const refused = (sCode: string, sMsg: string) => ({
    clOrdId: clientId,
    ordId: '',
    tag,
    ts: String(Date.now()),
    sCode,
    sMsg,
  });
  if (clientId && !CLIENT_ID.test(clientId)) return refused('51000', 'Parameter clOrdId error');
  const market = markets.find((m) => instId(m) === entry.instId);
  if (!market) return refused('51001', "Instrument ID doesn't exist.");
  const placed = placeOrder(
    account,
    {
      clientId,
      base: market.base,
      quote: market.quote,
      side: entry.side === 'sell' ? 'sell' : 'buy',
      type: entry.ordType === 'market' ? 'market' : 'limit',
      amount: String(entry.sz ?? '0'),
      price: entry.px === undefined ? null : String(entry.px),
      // A spot market buy's size is what it spends unless it says base_ccy.
      quoteSized: entry.ordType === 'market' && entry.side === 'buy' && entry.tgtCcy !== 'base_ccy',
    },
    String(Date.now() * 1000 + Math.floor(Math.random() * 1000)),
  );
  if (!placed) return refused('51016', 'Duplicated clOrdId');
  if (crossesOnArrival(placed)) fillNow(account, placed, OKX_FILLS);
  return { clOrdId: clientId, ordId: placed.id, tag, ts: String(placed.time), sCode: '0', sMsg: 'Order placed' };
}

/** Answers an order endpoint, or undefined for any other path. */
export function okxOrders(
  method: string,
  path: string,
  query: URLSearchParams,
  body: string,
  account: VenueAccount,
  markets: readonly { base: string; quote: string }[],
): LoopbackReply | undefined {
  if (method === 'POST' && (path === '/api/v5/trade/order' || path === '/api/v5/trade/batch-orders')) {
    const parsed = JSON.parse(body || '{}') as Record<string, unknown> | Record<string, unknown>[];
    const results = (Array.isArray(parsed) ? parsed : [parsed]).map((entry) => place(account, entry, markets));
    const failed = results.filter((r) => r.sCode !== '0').length;
    if (failed === 0) return answer('0', '', results);
    if (failed === results.length) return answer('1', 'All operations failed', results);
    return answer('2', 'Bulk operation partially succeeded', results);
  }
  const find = (ordId: string | null | undefined, clOrdId: string | null | undefined, inst: unknown) =>
    ordersOf(account).find(
      (o) => instId(o) === inst && ((ordId && o.id === ordId) || (clOrdId && o.clientId === clOrdId)),
    );
  if (method === 'GET' && path === '/api/v5/trade/order') {
    const order = find(query.get('ordId'), query.get('clOrdId'), query.get('instId'));
    return order ? answer('0', '', [render(order, '', account)]) : answer('51603', 'Order does not exist', []);
  }
  if (method === 'POST' && path === '/api/v5/trade/cancel-order') {
    const entry = JSON.parse(body || '{}') as Record<string, string>;
    const order = find(entry.ordId, entry.clOrdId, entry.instId);
    if (order?.status !== 'open') {
      const sMsg = 'Order cancellation failed as the order has been filled, canceled or does not exist';
      return answer('1', 'Operation failed.', [
        { clOrdId: entry.clOrdId ?? '', ordId: entry.ordId ?? '', sCode: '51400', sMsg },
      ]);
    }
    order.status = 'canceled';
    order.updated = Date.now();
    return answer('0', '', [
      { clOrdId: order.clientId, ordId: order.id, ts: String(Date.now()), sCode: '0', sMsg: '' },
    ]);
  }
  return undefined;
}
