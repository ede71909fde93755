// Cancel-all (decisions 831, 913), and a halt's (1031): every order asked to cancel, whatever the others'
// cancels did, a few at a time and within a deadline, so that a venue that does not answer holds the request
// for a bounded time, not one venue timeout per order. Each cancel goes through the venue budget like any call.
import { AppError } from '../../platform/http/errors.ts';
import { isFinal } from './orders.domain.ts';
import type { OrderRow } from './orders.rows.ts';

/** Why cancel-all lists an order it could not cancel (decisions 831, 913). */
const CANCEL_UNANSWERED =
  'The venue gave no answer to the cancel: the order stays as it is until a lookup tells; ask again to retry';
const CANCEL_FAILED = 'The cancel could not be completed: the order stays as it is; ask again to retry';
const NOT_ASKED =
  'Not asked: the venue did not answer the cancels before them in time; the order stays as it is; ask again to retry';

export interface CancelAllBounds {
  /** Cancels in flight at once. */
  concurrency: number;
  /** After this long (ms) no further cancel is started; those in flight finish within their venue timeout. */
  deadlineMs: number;
}

export interface CancelAllResult {
  canceled: OrderRow[];
  failed: { order: OrderRow; detail: string }[];
}

/**
 * Asks each order's cancel once, `bounds.concurrency` at a time; orders not started when `bounds.deadlineMs`
 * has passed are listed in `failed` as not asked (never sent, so asking again is safe). The answer keeps the
 * orders' order.
 */
export async function cancelEach(
  open: readonly OrderRow[],
  cancel: (order: OrderRow) => Promise<OrderRow>,
  bounds: CancelAllBounds,
  /** Told of a cancel that threw (the answer lists the order with its detail, never the error). */
  logFailure: (error: unknown, order: OrderRow) => void,
): Promise<CancelAllResult> {
  const startBy = performance.now() + bounds.deadlineMs;
  const outcomes: ({ canceled: OrderRow } | { failed: { order: OrderRow; detail: string } })[] = [];
  let next = 0;

  async function one(order: OrderRow) {
    try {
      const after = await cancel(order);
      return isFinal(after.status) ? { canceled: after } : { failed: { order: after, detail: CANCEL_UNANSWERED } };
    } catch (error) {
      logFailure(error, order);
      const detail = error instanceof AppError && typeof error.detail === 'string' ? error.detail : CANCEL_FAILED;
      return { failed: { order, detail } };
    }
  }

  async function worker(): Promise<void> {
    while (next < open.length) {
      const index = next++;
      const order = open[index]!;
      outcomes[index] = performance.now() >= startBy ? { failed: { order, detail: NOT_ASKED } } : await one(order);
    }
  }

  await Promise.all(Array.from({ length: Math.max(1, Math.min(bounds.concurrency, open.length)) }, worker));
  const result: CancelAllResult = { canceled: [], failed: [] };
  for (const outcome of outcomes)
    if ('canceled' in outcome) result.canceled.push(outcome.canceled);
    else result.failed.push(outcome.failed);
  return result;
}
