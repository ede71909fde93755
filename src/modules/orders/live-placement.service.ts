// A live order placed: claimed (stored `unknown` with its audit entries, committed before anything is
// sent, decision 385), sent once, and the venue's answer applied, in one statement while the row is as its
// claim left it (decision 420); an answer that never comes is looked up.
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.ts';
import type { OrderVenue, ResolvedCredential, SubmitResult } from '../../platform/order-venue.ts';
import type { AuditEvent } from '../../platform/audit.ts';
import { auditRows, type ORDERS_AUDIT_ACTIONS } from './orders.audit.ts';
import type { OrderMoves } from './order-moves.service.ts';
import type { OrderPublisher } from './order-publisher.ts';
import type { OrdersRepository } from './orders.repository.ts';
import type { NewOrder, OrderRow } from './orders.rows.ts';
import { type Mover, requestOf, settleNew, storedAmount, transitionEntry } from './order-updates.ts';

type OrdersAuditAction = (typeof ORDERS_AUDIT_ACTIONS)[number];

/** A claimed order: its row, and the row's version (`xmin`) as its claim stored it, for its answer (decision 420). */
export interface ClaimedOrder {
  row: OrderRow;
  version: string;
}

export function createLivePlacement(deps: {
  repo: Pick<OrdersRepository, 'insertAudited' | 'finishClaimed'>;
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
  hold: OrderPublisher['hold'];
  moves: Pick<OrderMoves, 'apply' | 'resolve' | 'afterCommit'>;
}) {
  const { repo, clock, logger, hold } = deps;
  const { apply, resolve, afterCommit } = deps.moves;

  /** The venue's answer to the send applied: in one statement while the row is as its claim left it. */
  async function answered(claimed: OrderRow, version: string, result: SubmitResult, mover: Mover): Promise<OrderRow> {
    // The claim was flushed before the send; the answer is the venue's to tell again, by the order's client
    // order id, should the database lose it: its commit does not wait for the disk (decision 386).
    if (result.kind !== 'unknown') {
      const update = result.kind === 'accepted' ? { state: result.state } : { rejected: result.reason };
      // One statement while the row is as its claim left it; else under its lock (decision 420).
      const settled = settleNew(claimed, update, mover, clock.now());
      if (settled) {
        const { patch, fills, entry } = settled;
        const entries = auditRows(entry ? [entry] : [], patch.updatedAt);
        const finished = await repo.finishClaimed(claimed, version, patch, fills, entries);
        if (finished) {
          // The daily loss check weighs the limits the answer's statement read (decision 461).
          await afterCommit({ row: finished.row, changed: true, fills, dailyLoss: finished.dailyLoss });
          return finished.row;
        }
      }
      return apply(claimed.id, update, mover, 'unflushed');
    }
    logger.warn({ orderId: claimed.id, reason: result.reason }, 'order outcome unknown; looking it up');
    return resolve(claimed, mover);
  }

  return {
    /**
     * A new order for a venue outside the process (live): stored already claimed for sending, with its
     * client order id and audit entries (`order.place`, `pending→unknown`), in one statement that
     * commits before anything is sent (decisions 272, 385). Only this request sends it: nothing else sends an
     * order, and a pass finding it `unknown` looks it up. Answers the stored order with its version, or
     * 'idempotency_taken' when another request stored one with the same key first.
     */
    async storeClaimed(
      order: NewOrder & Pick<OrderRow, 'status'>,
      placed: AuditEvent<OrdersAuditAction>,
      mover: Mover,
    ): Promise<ClaimedOrder | 'idempotency_taken'> {
      const now = clock.now();
      // The row as it is stored (the entry names its amount filled as the database writes it).
      const stored = { ...order, status: 'unknown', sentAt: now, filled: storedAmount('0'), reason: null } as OrderRow;
      const entries = auditRows([placed, transitionEntry(stored, 'pending', mover)], now);
      const inserted = await repo.insertAudited({ ...order, status: 'unknown', sentAt: now }, entries);
      if (inserted === 'idempotency_taken') return inserted;
      const claimed = inserted.row;
      // Both states, in order, as when they were committed one by one; with the answer's if it comes soon.
      hold([{ ...claimed, status: 'pending', sentAt: null }, claimed]);
      return inserted;
    },

    /**
     * Sends an order its caller claimed (`unknown`, stored and committed), once, and applies the answer;
     * with the credential the caller read for it, if any (decision 345).
     */
    async sendClaimed(
      { row: claimed, version }: ClaimedOrder,
      venue: OrderVenue,
      mover: Mover,
      credential?: ResolvedCredential,
    ): Promise<OrderRow> {
      const result = await venue.submit({ ...requestOf(claimed), ...(credential ? { credential } : {}) });
      try {
        return await answered(claimed, version, result, mover);
      } catch (error) {
        // The order is at the venue (or may be): its claim is stored `unknown`, which the reconcile pass looks
        // up by its client order id. A failed write is no reason to answer an error that invites a resend
        // (decision 830).
        logger.warn(
          { err: error, orderId: claimed.id },
          "the venue's answer to an order sent could not be stored: it stays unknown for the reconcile pass",
        );
        return claimed;
      }
    },
  };
}
