// Coinbase Advanced Trade's order endpoints for the Coinbase fake (PROTOCOLS B9): POST orders with
// `client_order_id` (a reused one answers the earlier order instead of an error), orders/historical/
// {order_id}, orders/historical/batch (there is no lookup by client id: list and match), and
// orders/batch_cancel. The list answers newest first, `limit` to a page (100 unless asked, at most 1000,
// as its fills listing), `has_next` and a `cursor` naming where the next page starts; it filters by
// `product_ids` (or ccxt's `product_id`), `order_ids`, `order_status`, and by creation time from
// `start_date` (inclusive) to `end_date` (exclusive), RFC 3339. A market order (or a limit crossing the
// touch) fills at once, in two fills; a resting limit fills when the fake is told the price crossed it.
// A market buy is sized by `quote_size` (what it spends), a sell by `base_size`. Orders show
// `filled_size`, `average_filled_price`, `number_of_fills`, `filled_value` and `total_fees`; the fills
// are in orders/historical/fills under their `trade_id`, commission in the quote currency. Caveats: the
// failure reason for an unknown cancel, the refusal of a market buy by `base_size`, and the list's
// default and largest page (ccxt asks 100 unless told, and pages by 1000) are not confirmed.
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

/** Coinbase Advanced's lowest tier: 0.60% taker, 0.40% maker, in the quote currency; trade ids are UUIDs. */
export const COINBASE_FILLS: FillRules = {
  taker: '0.006',
  maker: '0.004',
  feeIn: 'quote',
  tradeId: () => crypto.randomUUID(),
};

const STATUS: Record<VenueOrder['status'], string> = { open: 'OPEN', filled: 'FILLED', canceled: 'CANCELLED' };

const productId = (o: { base: string; quote: string }) => `${o.base}-${o.quote}`;

function configuration(order: VenueOrder) {
  return order.type === 'limit'
    ? { limit_limit_gtc: { base_size: order.amount, limit_price: order.price ?? '0', post_only: false } }
    : { market_market_ioc: order.quoteSized ? { quote_size: order.amount } : { base_size: order.amount } };
}

function render(order: VenueOrder, account: VenueAccount) {
  const filled = new Decimal(order.filled);
  const whole = order.quoteSized ? new Decimal(order.cost) : new Decimal(order.amount);
  const done = order.quoteSized ? new Decimal(order.cost) : filled;
  return {
    order_id: order.id,
    product_id: productId(order),
    user_id: 'user-1',
    order_configuration: configuration(order),
    side: order.side === 'buy' ? 'BUY' : 'SELL',
    client_order_id: order.clientId,
    status: STATUS[order.status],
    time_in_force: order.type === 'limit' ? 'GOOD_UNTIL_CANCELLED' : 'IMMEDIATE_OR_CANCEL',
    created_time: new Date(order.time).toISOString(),
    completion_percentage: whole.isZero() ? '0' : done.dividedBy(whole).times(100).toFixed(2),
    filled_size: filled.toFixed(),
    average_filled_price: filled.isZero() ? '0' : new Decimal(order.cost).dividedBy(filled).toFixed(),
    fee: '',
    number_of_fills: String(fillsOfOrder(account, order).length),
    filled_value: new Decimal(order.cost).toFixed(),
    pending_cancel: false,
    size_in_quote: order.quoteSized === true,
    total_fees: new Decimal(order.fee).toFixed(),
    size_inclusive_of_fees: false,
    total_value_after_fees: new Decimal(order.cost)
      .plus(order.side === 'buy' ? order.fee : new Decimal(order.fee).negated())
      .toFixed(),
    trigger_status: 'INVALID_ORDER_TYPE',
    order_type: order.type === 'limit' ? 'LIMIT' : 'MARKET',
    reject_reason: '',
    settled: false,
    product_type: 'SPOT',
    reject_message: '',
    cancel_message: '',
  };
}

const invalidArgument = (message: string): LoopbackReply => ({
  status: 400,
  body: { error: 'INVALID_ARGUMENT', error_details: message, message },
});

/** orders/historical/batch: a page of the account's orders, newest first, and whether more follow. */
function listOrders(query: URLSearchParams, account: VenueAccount): LoopbackReply {
  const products = [...query.getAll('product_ids'), ...query.getAll('product_id')];
  const ids = query.getAll('order_ids');
  const statuses = query.getAll('order_status');
  const bounds: Record<'start_date' | 'end_date', number | null> = { start_date: null, end_date: null };
  for (const name of ['start_date', 'end_date'] as const) {
    const given = query.get(name);
    if (given === null) continue;
    bounds[name] = Date.parse(given);
    if (Number.isNaN(bounds[name])) return invalidArgument(`${name} is not an RFC 3339 time`);
  }
  const asked = Number(query.get('limit') ?? 100);
  const limit = Number.isInteger(asked) && asked > 0 ? Math.min(1000, asked) : 100;
  // Newest first; orders of one millisecond in the order they arrived.
  const all = ordersOf(account);
  const rows = all
    .map((order, at) => ({ order, at }))
    .filter(
      ({ order: o }) =>
        (products.length === 0 || products.includes(productId(o))) &&
        (ids.length === 0 || ids.includes(o.id)) &&
        (statuses.length === 0 || statuses.includes(STATUS[o.status])) &&
        (bounds.start_date === null || o.time >= bounds.start_date) &&
        (bounds.end_date === null || o.time < bounds.end_date),
    )
    .sort((a, b) => b.order.time - a.order.time || b.at - a.at)
    .map(({ order }) => order);
  // The cursor names the last order of the page before: orders placed since come before it, none is skipped.
  const cursor = query.get('cursor');
  let from = 0;
  if (cursor) {
    const after = rows.findIndex((o) => o.id === Buffer.from(cursor, 'base64url').toString());
    if (after < 0) return invalidArgument('invalid cursor');
    from = after + 1;
  }
  const page = rows.slice(from, from + limit);
  const hasNext = from + limit < rows.length;
  return {
    body: {
      orders: page.map((o) => render(o, account)),
      sequence: '0',
      has_next: hasNext,
      cursor: hasNext ? Buffer.from(page.at(-1)!.id).toString('base64url') : '',
    },
  };
}

/** Places an order; one that crosses the touch fills at once. */
function place(account: VenueAccount, order: Parameters<typeof placeOrder>[1], id: string) {
  const placed = placeOrder(account, order, id);
  if (placed && crossesOnArrival(placed)) fillNow(account, placed, COINBASE_FILLS);
  return placed;
}

/** Answers an order endpoint, or undefined for any other path. */
export function coinbaseOrders(
  method: string,
  path: string,
  query: URLSearchParams,
  body: string,
  account: VenueAccount,
  markets: readonly { base: string; quote: string }[],
): LoopbackReply | undefined {
  if (method === 'POST' && path === '/api/v3/brokerage/orders') {
    const input = JSON.parse(body || '{}') as Record<string, unknown>;
    const clientId = String(input.client_order_id ?? '');
    const config = (input.order_configuration ?? {}) as Record<string, Record<string, string>>;
    const [kind, fields] = Object.entries(config)[0] ?? ['', {}];
    const market = markets.find((m) => productId(m) === input.product_id);
    const marketBuyByBase = kind === 'market_market_ioc' && input.side === 'BUY' && !fields?.quote_size;
    if (!market || !clientId || !fields || marketBuyByBase) {
      const error_response = {
        error: 'INVALID_ARGUMENT',
        message: 'invalid order',
        error_details: '',
        preview_failure_reason: 'UNKNOWN_PREVIEW_FAILURE_REASON',
      };
      return { body: { success: false, failure_reason: 'UNKNOWN_FAILURE_REASON', order_id: '', error_response } };
    }
    // A client id seen before answers that order again: the request is idempotent.
    const earlier = ordersOf(account).find((o) => o.clientId === clientId);
    const order =
      earlier ??
      place(
        account,
        {
          clientId,
          base: market.base,
          quote: market.quote,
          side: input.side === 'SELL' ? 'sell' : 'buy',
          type: kind.startsWith('limit') ? 'limit' : 'market',
          amount: fields.base_size ?? fields.quote_size ?? '0',
          price: fields.limit_price ?? null,
          quoteSized: fields.quote_size !== undefined && fields.base_size === undefined,
        },
        crypto.randomUUID(),
      )!;
    const success_response = {
      order_id: order.id,
      product_id: productId(order),
      side: input.side,
      client_order_id: clientId,
    };
    return {
      body: {
        success: true,
        failure_reason: 'UNKNOWN_FAILURE_REASON',
        order_id: order.id,
        success_response,
        order_configuration: configuration(order),
      },
    };
  }
  if (method === 'GET' && path === '/api/v3/brokerage/orders/historical/batch') return listOrders(query, account);
  const one = /^\/api\/v3\/brokerage\/orders\/historical\/([^/]+)$/.exec(path);
  if (method === 'GET' && one) {
    const order = ordersOf(account).find((o) => o.id === one[1]);
    if (!order)
      return {
        status: 404,
        body: {
          error: 'NOT_FOUND',
          error_details: 'order with this orderID was not found',
          message: 'order with this orderID was not found',
        },
      };
    return { body: { order: render(order, account) } };
  }
  if (method === 'POST' && path === '/api/v3/brokerage/orders/batch_cancel') {
    const ids = ((JSON.parse(body || '{}') as { order_ids?: string[] }).order_ids ?? []).map(String);
    const results = ids.map((id) => {
      const order = ordersOf(account).find((o) => o.id === id && o.status === 'open');
      if (order) Object.assign(order, { status: 'canceled', updated: Date.now() });
      return {
        success: order !== undefined,
        failure_reason: order ? 'UNKNOWN_CANCEL_FAILURE_REASON' : 'UNKNOWN_CANCEL_ORDER',
        order_id: id,
      };
    });
    return { body: { results } };
  }
  return undefined;
}
