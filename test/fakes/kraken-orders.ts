// Kraken's order endpoints for the Kraken fake (PROTOCOLS B8): AddOrder with `cl_ord_id` (a UUID
// or free text of at most 18 characters, unique among open orders), OpenOrders / ClosedOrders
// filtered by `cl_ord_id`, QueryOrders by txid, CancelOrder by txid or `cl_ord_id`. An order's
// `descr.pair` is the pair's altname. Caveat: the exact error strings for a malformed or duplicate
// `cl_ord_id` are not confirmed against Kraken's own pages.
import { ordersOf, placeOrder, type LoopbackReply, type VenueAccount, type VenueOrder } from './venue-loopback.ts';

type Pair = { base: string; quote: string; id: string; altname: string };

const ok = (result: unknown): LoopbackReply => ({ body: { error: [], result } });
const error = (message: string): LoopbackReply => ({ body: { error: [message], result: {} } });
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

function render(order: VenueOrder, pair: Pair) {
  const price = order.price ?? '0';
  return {
    refid: null,
    userref: 0,
    cl_ord_id: order.clientId || undefined,
    status: order.status === 'open' ? 'open' : 'canceled',
    opentm: order.time / 1000,
    starttm: 0,
    expiretm: 0,
    descr: {
      pair: pair.altname,
      type: order.side,
      ordertype: order.type,
      price,
      price2: '0',
      leverage: 'none',
      order: `${order.side} ${order.amount} ${pair.altname} @ ${order.type} ${price}`,
      close: '',
    },
    vol: order.amount,
    vol_exec: '0.00000000',
    cost: '0.00000',
    fee: '0.00000',
    price: '0.00000',
    misc: '',
    oflags: 'fciq',
  };
}

/** Answers an order endpoint, or undefined for any other path. */
export function krakenOrders(
  path: string,
  form: URLSearchParams,
  account: VenueAccount,
  pairs: readonly Pair[],
): LoopbackReply | undefined {
  const pairOf = (order: VenueOrder) => pairs.find((p) => p.base === order.base && p.quote === order.quote)!;
  const listed = (status: VenueOrder['status']) => {
    const wanted = form.get('cl_ord_id');
    const rows = ordersOf(account).filter((o) => o.status === status && (!wanted || o.clientId === wanted));
    return Object.fromEntries(rows.map((o) => [o.id, render(o, pairOf(o))]));
  };
  switch (path) {
    case '/0/private/AddOrder': {
      const pair = pairs.find((p) => p.id === form.get('pair') || p.altname === form.get('pair'));
      if (!pair) return error('EQuery:Unknown asset pair');
      const clientId = form.get('cl_ord_id') ?? '';
      if (clientId && !UUID.test(clientId) && clientId.length > 18)
        return error('EGeneral:Invalid arguments:cl_ord_id');
      const side = form.get('type') === 'sell' ? 'sell' : 'buy';
      const type = form.get('ordertype') === 'market' ? 'market' : 'limit';
      const amount = form.get('volume') ?? '0';
      const placed = placeOrder(
        account,
        { clientId, base: pair.base, quote: pair.quote, side, type, amount, price: form.get('price') },
        `O${Date.now().toString(36).toUpperCase()}-${Math.random().toString(36).slice(2, 7).toUpperCase()}`,
      );
      if (!placed) return error('EOrder:Duplicate order');
      return ok({ descr: { order: render(placed, pair).descr.order }, txid: [placed.id] });
    }
    case '/0/private/OpenOrders':
      return ok({ open: listed('open') });
    case '/0/private/ClosedOrders':
      return ok({ closed: listed('canceled'), count: Object.keys(listed('canceled')).length });
    case '/0/private/QueryOrders': {
      const ids = (form.get('txid') ?? '').split(',');
      const rows = ordersOf(account).filter((o) => ids.includes(o.id));
      if (rows.length === 0) return error('EOrder:Invalid order');
      return ok(Object.fromEntries(rows.map((o) => [o.id, render(o, pairOf(o))])));
    }
    case '/0/private/CancelOrder': {
      const txid = form.get('txid');
      const clientId = form.get('cl_ord_id');
      const order = ordersOf(account).find(
        (o) => o.status === 'open' && ((txid && o.id === txid) || (clientId && o.clientId === clientId)),
      );
      if (!order) return error('EOrder:Unknown order');
      order.status = 'canceled';
      return ok({ count: 1 });
    }
    default:
      return undefined;
  }
}
