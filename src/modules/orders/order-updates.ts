// What moves an order and how the order's rows record it: who moved it, the update the venue or a
// cancel brings, the venue's fills as fill rows, the row's fields after them, and the request the venue
// is sent. Pure: the state machine that applies them under the row's lock is order-moves.service.ts.
import { randomUUID } from 'node:crypto';
import type { AuditEvent } from '../../platform/audit.ts';
import type { VenueFill, VenueOrderRequest, VenueOrderState } from '../../platform/order-venue.ts';
import type { ORDERS_AUDIT_ACTIONS } from './orders.audit.ts';
import { amountAtScale, fillTotals, isFinal, newFills, type OrderStatus, progressFrom } from './orders.domain.ts';
import type { FillRow, OrderPatch, OrderRow } from './orders.rows.ts';

/** Who moved the order: the user in a request, or the service itself (reconcile, a venue's notice). */
export interface Mover {
  actorId: string | null;
  actorType: 'user' | 'job' | 'system';
  ip?: string;
}

export const SYSTEM: Mover = { actorId: null, actorType: 'system' };

/** The audit entry of an order's move from `from` to the row's status, by `mover`. */
export function transitionEntry(
  row: OrderRow,
  from: OrderStatus,
  mover: Mover,
): AuditEvent<(typeof ORDERS_AUDIT_ACTIONS)[number]> {
  return {
    actorId: mover.actorId,
    actorType: mover.actorType,
    action: 'order.transition',
    subjectUserId: row.userId,
    targetType: 'order',
    targetId: row.id,
    details: { from, to: row.status, filled: row.filled, mode: row.mode, reason: row.reason },
    ip: mover.ip ?? null,
  };
}

/**
 * What moves an order: the venue's state of it, a refusal, or a cancel before it was sent. `whilePending`
 * (and every `canceled`) applies only to an order still `pending` under its lock: one its sender claimed
 * meanwhile may have been sent, and only the venue can say what became of it (decision 260).
 */
export type Update = { state: VenueOrderState } | { rejected: string; whilePending?: boolean } | { canceled: string };

/** A fill the venue reported, as the order's fill row holds it. */
export function fillOf(orderId: string, f: VenueFill): Omit<FillRow, 'id'> {
  const { tradeId, price, amount, fee, feeCurrency, maker, at } = f;
  return { orderId, tradeId, price, amount, fee, feeCurrency, maker, at };
}

export function requestOf(row: OrderRow): VenueOrderRequest {
  return {
    userId: row.userId,
    exchange: row.exchange,
    symbol: row.symbol,
    clientOrderId: row.clientOrderId,
    side: row.side,
    type: row.type,
    timeInForce: row.timeInForce,
    amount: row.amount,
    price: row.price,
    credentialId: row.credentialId,
    sentAt: row.sentAt,
    venueOrderId: row.venueOrderId,
    createdAt: row.createdAt,
  };
}

/** The row's fields once the venue's `progress` (if any) is applied and `all` are its fills. */
export function patchFor(
  current: OrderRow,
  progress: ReturnType<typeof progressFrom>,
  all: readonly FillRow[],
  now: Date,
): Required<OrderPatch> {
  const totals = fillTotals(all);
  const status = progress?.status ?? current.status;
  return {
    status,
    filled: progress?.filled ?? current.filled,
    cost: totals.cost,
    fee: totals.fee,
    feeCurrency: all.at(-1)?.feeCurrency ?? current.feeCurrency,
    averagePrice: totals.averagePrice ?? progress?.averagePrice ?? current.averagePrice,
    venueOrderId: progress?.venueOrderId ?? current.venueOrderId,
    reason: progress?.reason ?? current.reason,
    notFinal: !isFinal(status),
    updatedAt: now,
  };
}

/** A stored amount as PostgreSQL writes a numeric(38, 18): the audit entry reads as the row does. */
export const storedAmount = (value: string) => amountAtScale(value, 18);

/**
 * What an update does to an order made or claimed just now (`claimed`, no fills yet): its row's fields, its
 * fills (ids given) and the audit entry of its move, if it moves; null when it changes nothing.
 */
export function settleNew(
  claimed: OrderRow,
  update: Exclude<Update, { canceled: string }>,
  mover: Mover,
  now: Date,
): { patch: Required<OrderPatch>; fills: FillRow[]; entry: ReturnType<typeof transitionEntry> | null } | null {
  let patch: Required<OrderPatch>;
  let fills: FillRow[] = [];
  if ('state' in update) {
    fills = newFills([], update.state.fills).map((f) => ({ id: randomUUID(), ...fillOf(claimed.id, f) }));
    const progress = progressFrom(claimed, update.state);
    if (!progress && fills.length === 0) return null;
    patch = patchFor(claimed, progress, fills, now);
  } else {
    patch = { ...patchFor(claimed, null, [], now), status: 'rejected', reason: update.rejected, notFinal: false };
  }
  const entry =
    patch.status === claimed.status
      ? null
      : transitionEntry({ ...claimed, ...patch, filled: storedAmount(patch.filled) }, claimed.status, mover);
  return { patch, fills, entry };
}

/**
 * The order as the venue's `state` leaves it, without storing it: what a request answers when the venue
 * acted and the database then failed (decision 910). Its fills, cost and fee stay as stored: the reconcile
 * pass's lookup stores them with the state.
 */
export function answeredUnstored(current: OrderRow, state: VenueOrderState, now: Date): OrderRow {
  const progress = progressFrom(current, state);
  if (!progress) return current;
  return {
    ...current,
    status: progress.status,
    filled: storedAmount(progress.filled),
    averagePrice: progress.averagePrice ?? current.averagePrice,
    venueOrderId: progress.venueOrderId ?? current.venueOrderId,
    reason: progress.reason ?? current.reason,
    notFinal: !isFinal(progress.status),
    updatedAt: now,
  };
}
