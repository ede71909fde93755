// Orders on the wire: each mapper typed by its response schema (decision 181).
import type { Static } from 'typebox';
import { Decimal } from 'decimal.js';
import { plainAmount } from './orders.domain.ts';
import type { FillRow, OrderRow } from './orders.rows.ts';
import type { Order, OrderDetail, OrderFill, OrderList } from './orders.schemas.ts';

/** numeric columns read back with trailing zeros (scale 18); the wire carries the plain value. */
const plain = plainAmount;
const plainOrNull = (value: string | null): string | null => (value === null ? null : plain(value));

export function orderWire(row: OrderRow): Static<typeof Order> {
  const remaining = Decimal.max(0, new Decimal(row.amount).minus(row.filled));
  return {
    id: row.id,
    client_order_id: row.clientOrderId,
    exchange: row.exchange,
    symbol: row.symbol,
    side: row.side,
    type: row.type,
    time_in_force: row.timeInForce,
    mode: row.mode,
    amount: plain(row.amount),
    price: plainOrNull(row.price),
    status: row.status,
    filled: plain(row.filled),
    remaining: remaining.toFixed(),
    average_price: plainOrNull(row.averagePrice),
    cost: plain(row.cost),
    fee: plain(row.fee),
    fee_currency: row.feeCurrency,
    venue_order_id: row.venueOrderId,
    strategy_id: row.strategyId,
    source: row.source,
    signal_hook_id: row.signalHookId,
    reason: row.reason,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function fillWire(row: FillRow): Static<typeof OrderFill> {
  return {
    id: row.tradeId,
    price: plain(row.price),
    amount: plain(row.amount),
    fee: plain(row.fee),
    fee_currency: row.feeCurrency,
    at: row.at.toISOString(),
  };
}

export function orderDetailWire(row: OrderRow, fills: readonly FillRow[]): Static<typeof OrderDetail> {
  return { ...orderWire(row), fills: fills.map(fillWire) };
}

export function orderListWire(page: {
  rows: OrderRow[];
  total: number;
  limit: number;
  offset: number;
}): Static<typeof OrderList> {
  return { orders: page.rows.map(orderWire), total: page.total, limit: page.limit, offset: page.offset };
}
