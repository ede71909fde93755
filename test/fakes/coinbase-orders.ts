// Coinbase Advanced Trade's order endpoints for the Coinbase fake (PROTOCOLS B9): POST orders with
// `client_order_id` (a reused one answers the earlier order instead of an error), orders/historical/
// {order_id}, orders/historical/batch (there is no lookup by client id: list and match), and
// orders/batch_cancel. Caveat: the failure reason for an unknown cancel is not confirmed.
import { ordersOf, placeOrder, type LoopbackReply, type VenueAccount, type VenueOrder } from './venue-loopback.ts';

const productId = (o: { base: string; quote: string }) => `${o.base}-${o.quote}`;

function configuration(order: VenueOrder) {
  return order.type === 'limit'
    ? { limit_limit_gtc: { base_size: order.amount, limit_price: order.price ?? '0', post_only: false } }
    : { market_market_ioc: { base_size: order.amount } };
}

function render(order: VenueOrder) {
  return {
    order_id: order.id,
    product_id: productId(order),
    user_id: 'user-1',
    order_configuration: configuration(order),
    side: order.side === 'buy' ? 'BUY' : 'SELL',
    client_order_id: order.clientId,
    status: order.status === 'open' ? 'OPEN' : 'CANCELLED',
    time_in_force: 'GOOD_UNTIL_CANCELLED',
    created_time: new Date(order.time).toISOString(),
    completion_percentage: '0',
    filled_size: '0',
    average_filled_price: '0',
    fee: '',
    number_of_fills: '0',
    filled_value: '0',
    pending_cancel: false,
    size_in_quote: false,
    total_fees: '0',
    size_inclusive_of_fees: false,
    total_value_after_fees: '0',
    trigger_status: 'INVALID_ORDER_TYPE',
    order_type: order.type === 'limit' ? 'LIMIT' : 'MARKET',
    reject_reason: '',
    settled: false,
    product_type: 'SPOT',
    reject_message: '',
    cancel_message: '',
  };
}

/** Answers an order endpoint, or undefined for any other path. */
export function coinbaseOrders(
  method: string,
  path: string,
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
    if (!market || !clientId || !fields) {
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
      placeOrder(
        account,
        {
          clientId,
          base: market.base,
          quote: market.quote,
          side: input.side === 'SELL' ? 'sell' : 'buy',
          type: kind.startsWith('limit') ? 'limit' : 'market',
          amount: fields.base_size ?? fields.quote_size ?? '0',
          price: fields.limit_price ?? null,
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
  if (method === 'GET' && path === '/api/v3/brokerage/orders/historical/batch') {
    return { body: { orders: ordersOf(account).map(render), has_next: false, cursor: '', sequence: '0' } };
  }
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
    return { body: { order: render(order) } };
  }
  if (method === 'POST' && path === '/api/v3/brokerage/orders/batch_cancel') {
    const ids = ((JSON.parse(body || '{}') as { order_ids?: string[] }).order_ids ?? []).map(String);
    const results = ids.map((id) => {
      const order = ordersOf(account).find((o) => o.id === id && o.status === 'open');
      if (order) order.status = 'canceled';
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
