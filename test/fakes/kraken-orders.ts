// Kraken's order endpoints for the Kraken fake (PROTOCOLS B8): AddOrder with `cl_ord_id` (a UUID
// or free text of at most 18 characters, unique among open orders), OpenOrders / ClosedOrders
// filtered by `cl_ord_id`, QueryOrders by txid, CancelOrder by txid or `cl_ord_id`, QueryTrades by
// trade txid. An order's `descr.pair` is the pair's altname. A market order (or a limit crossing
// the touch) fills at once, in two trades; a resting limit fills when the fake is told the price
// crossed it. Orders show `vol_exec`, `cost`, `fee` and the average `price`, and with `trades=true`
// their trade txids; the fills are in TradesHistory and QueryTrades under those txids, fees in the
// quote currency (`fciq`). AddOrder's `deadline` (RFC3339; Kraken takes 2 to 60 s ahead) is held: an order
// arriving after it is not placed (`EService:Deadline elapsed`), one more than 60 s ahead or unreadable is
// refused as an invalid argument. Caveat: the exact error strings for a malformed or duplicate `cl_ord_id`,
// and for a deadline out of range, are not confirmed against Kraken's own pages.
import { Decimal } from 'decimal.js';
import {
  crossesOnArrival,
  fillCost,
  fillNow,
  fillsOfOrder,
  ordersOf,
  placeOrder,
  type FillRules,
  type LoopbackReply,
  type VenueAccount,
  type VenueFill,
  type VenueOrder,
} from './venue-loopback.ts';

type Pair = { base: string; quote: string; id: string; altname: string };

const ok = (result: unknown): LoopbackReply => ({ body: { error: [], result } });
const error = (message: string): LoopbackReply => ({ body: { error: [message], result: {} } });
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Kraken's txid form: a letter, then 5-5-6 characters (`OQCLML-BW3P3-BUCMWZ`, `TIMIRG-WUNNE-RRJ6GT`). */
function txid(letter: 'O' | 'T'): string {
  const part = (n: number) => Array.from({ length: n }, () => CHARS[Math.floor(Math.random() * CHARS.length)]).join('');
  return `${letter}${part(5)}-${part(5)}-${part(6)}`;
}

/** Kraken's spot fees (the fake's AssetPairs): 0.40% taker, 0.25% maker, in the quote currency. */
export const KRAKEN_FILLS: FillRules = { taker: '0.004', maker: '0.0025', feeIn: 'quote', tradeId: () => txid('T') };

const STATUS: Record<VenueOrder['status'], string> = { open: 'open', filled: 'closed', canceled: 'canceled' };

function render(order: VenueOrder, pair: Pair, account: VenueAccount, withTrades: boolean) {
  const price = order.price ?? '0';
  const filled = new Decimal(order.filled);
  const trades = fillsOfOrder(account, order).map((f) => f.id);
  return {
    refid: null,
    userref: 0,
    cl_ord_id: order.clientId || undefined,
    status: STATUS[order.status],
    opentm: order.time / 1000,
    starttm: 0,
    expiretm: 0,
    ...(order.status === 'open'
      ? {}
      : { closetm: order.updated / 1000, reason: order.status === 'canceled' ? 'User requested' : null }),
    descr: {
      pair: pair.altname,
      type: order.side,
      ordertype: order.type,
      price,
      price2: '0',
      leverage: 'none',
      order: `${order.side} ${order.amount} ${pair.altname} @ ${order.type}${order.type === 'limit' ? ` ${price}` : ''}`,
      close: '',
    },
    vol: order.amount,
    vol_exec: filled.toFixed(8),
    cost: new Decimal(order.cost).toFixed(5),
    fee: new Decimal(order.fee).toFixed(5),
    price: filled.isZero() ? '0.00000' : new Decimal(order.cost).dividedBy(filled).toFixed(5),
    misc: '',
    oflags: 'fciq',
    ...(withTrades && trades.length > 0 ? { trades } : {}),
  };
}

/** A fill as TradesHistory and QueryTrades state it. */
export function krakenTrade(f: VenueFill, pairId: string) {
  return {
    ordertxid: f.orderId,
    postxid: 'TKH2SE-M7IF5-CFI7LT',
    pair: pairId,
    time: f.time / 1000,
    type: f.side,
    ordertype: 'limit',
    price: f.price,
    cost: fillCost(f),
    fee: f.fee,
    vol: f.amount,
    margin: '0.00000',
    misc: '',
    trade_id: Number(f.id.replace(/\D/g, '')),
    maker: f.maker === true,
  };
}

/** Answers an order endpoint, or undefined for any other path. */
export function krakenOrders(
  path: string,
  form: URLSearchParams,
  account: VenueAccount,
  pairs: readonly Pair[],
  now: number,
): LoopbackReply | undefined {
  const pairOf = (order: { base: string; quote: string }) =>
    pairs.find((p) => p.base === order.base && p.quote === order.quote)!;
  const withTrades = form.get('trades') === 'true';
  const shown = (rows: VenueOrder[]) =>
    Object.fromEntries(rows.map((o) => [o.id, render(o, pairOf(o), account, withTrades)]));
  const listed = (statuses: VenueOrder['status'][]) => {
    const wanted = form.get('cl_ord_id');
    return shown(ordersOf(account).filter((o) => statuses.includes(o.status) && (!wanted || o.clientId === wanted)));
  };
  switch (path) {
    case '/0/private/AddOrder': {
      const pair = pairs.find((p) => p.id === form.get('pair') || p.altname === form.get('pair'));
      if (!pair) return error('EQuery:Unknown asset pair');
      const clientId = form.get('cl_ord_id') ?? '';
      if (clientId && !UUID.test(clientId) && clientId.length > 18)
        return error('EGeneral:Invalid arguments:cl_ord_id');
      const deadline = form.get('deadline');
      if (deadline !== null) {
        const at = Date.parse(deadline);
        if (!Number.isFinite(at) || at > now + 60_000) return error('EGeneral:Invalid arguments:deadline');
        if (at <= now) return error('EService:Deadline elapsed');
      }
      const side = form.get('type') === 'sell' ? 'sell' : 'buy';
      const type = form.get('ordertype') === 'market' ? 'market' : 'limit';
      const amount = form.get('volume') ?? '0';
      const placed = placeOrder(
        account,
        { clientId, base: pair.base, quote: pair.quote, side, type, amount, price: form.get('price') },
        txid('O'),
      );
      if (!placed) return error('EOrder:Duplicate order');
      if (crossesOnArrival(placed)) fillNow(account, placed, KRAKEN_FILLS);
      return ok({ descr: { order: render(placed, pair, account, false).descr.order }, txid: [placed.id] });
    }
    case '/0/private/OpenOrders':
      return ok({ open: listed(['open']) });
    case '/0/private/ClosedOrders': {
      const closed = listed(['filled', 'canceled']);
      return ok({ closed, count: Object.keys(closed).length });
    }
    case '/0/private/QueryOrders': {
      const ids = (form.get('txid') ?? '').split(',');
      const rows = ordersOf(account).filter((o) => ids.includes(o.id));
      if (rows.length === 0) return error('EOrder:Invalid order');
      return ok(shown(rows));
    }
    case '/0/private/QueryTrades': {
      const ids = (form.get('txid') ?? '').split(',');
      const rows = account.fills.filter((f) => ids.includes(f.id));
      if (rows.length === 0) return error('EGeneral:Invalid arguments');
      return ok(Object.fromEntries(rows.map((f) => [f.id, krakenTrade(f, pairOf(f).id)])));
    }
    case '/0/private/CancelOrder': {
      const id = form.get('txid');
      const clientId = form.get('cl_ord_id');
      const order = ordersOf(account).find(
        (o) => o.status === 'open' && ((id && o.id === id) || (clientId && o.clientId === clientId)),
      );
      if (!order) return error('EOrder:Unknown order');
      order.status = 'canceled';
      order.updated = Date.now();
      return ok({ count: 1 });
    }
    default:
      return undefined;
  }
}
