// A paper order placed: settled by the engine inside the process, then written once in its final state,
// in one transaction (decisions 270, 415).
import type { Clock } from '../../platform/clock.ts';
import type { Db, DbExecutor } from '../../platform/db/database.ts';
import type { OrderVenue } from '../../platform/order-venue.ts';
import type { AuditEvent } from '../../platform/audit.ts';
import { auditRows, type ORDERS_AUDIT_ACTIONS } from './orders.audit.ts';
import type { OrderMoves, Outcome } from './order-moves.service.ts';
import type { OrderPublisher } from './order-publisher.ts';
import type { OrdersRepository } from './orders.repository.ts';
import { storedOrder, type NewOrder, type OrderRow } from './orders.rows.ts';
import { type Mover, requestOf, settleNew, transitionEntry, type Update } from './order-updates.ts';

type OrdersAuditAction = (typeof ORDERS_AUDIT_ACTIONS)[number];

/** Thrown inside a paper order's transaction when another request stored an order with its key: rolls back. */
const KEY_TAKEN = new Error('idempotency_taken');

export function createPaperPlacement(deps: {
  db: Db;
  repo: Pick<OrdersRepository, 'insertFinished'>;
  clock: Clock;
  publish: OrderPublisher['publish'];
  afterCommit: OrderMoves['afterCommit'];
}) {
  const { db, repo, clock, publish, afterCommit } = deps;

  /**
   * Writes an order made in this transaction (`claimed`, not stored yet) in the state the update brings,
   * in one statement: the row, its fills and every audit entry (`entries` and the move's own), as an insert,
   * `applyWithin` and `auditAll` would in three (decision 415). `KEY_TAKEN` when its idempotency key is taken.
   */
  async function insertFinished(
    tx: DbExecutor,
    claimed: OrderRow,
    update: Exclude<Update, { canceled: string }>,
    mover: Mover,
    now: Date,
    entries: AuditEvent<OrdersAuditAction>[],
  ): Promise<Outcome> {
    const settled = settleNew(claimed, update, mover, now);
    if (settled?.entry) entries.push(settled.entry);
    const fills = settled?.fills ?? [];
    const written = await repo.insertFinished({ ...claimed, ...settled?.patch }, fills, auditRows(entries, now), tx);
    if (written === 'idempotency_taken') throw KEY_TAKEN;
    return { row: written.row, changed: settled !== null, fills, dailyLoss: written.dailyLoss };
  }

  return {
    /**
     * An order of a venue inside this process and its database (paper): settled, then stored in its final
     * state, in one transaction (decisions 270, 415). Nothing leaves the process, so there is no send to
     * put the stored row before; a failure anywhere rolls the whole back: nothing stored, settled or
     * audited. What the venue needs from outside (the book) is read before.
     */
    async placeInProcess(
      order: NewOrder & Pick<OrderRow, 'status'>,
      placed: AuditEvent<OrdersAuditAction>,
      venue: Required<Pick<OrderVenue, 'inProcess'>>,
      mover: Mover,
    ): Promise<OrderRow | 'idempotency_taken'> {
      const prepared = await venue.inProcess.prepare(requestOf(order as OrderRow));
      const now = clock.now();
      // Claimed with its send time, as its insert would answer: written once, final, after the settlement.
      const claimed = storedOrder({ ...order, status: 'unknown', sentAt: now, updatedAt: now });
      const done = await db
        .transaction(async (tx) => {
          const entries = [placed, transitionEntry(claimed, 'pending', mover)];
          const result = prepared.kind === 'refused' ? prepared : await prepared.settle(tx);
          const update = result.kind === 'accepted' ? { state: result.state } : { rejected: result.reason };
          return { outcome: await insertFinished(tx, claimed, update, mover, now, entries), result };
        })
        // Another request stored an order with this key first: the settlement was rolled back with the rest.
        .catch((error: unknown) => (error === KEY_TAKEN ? ('idempotency_taken' as const) : Promise.reject(error)));
      if (done === 'idempotency_taken') return done;
      if (prepared.kind === 'ready') prepared.settled(done.result);
      // Each state the order passed through, in order, as when they were committed one by one.
      const stored: OrderRow = { ...claimed, status: 'pending', updatedAt: order.updatedAt };
      publish(stored, claimed, ...(done.outcome.changed ? [done.outcome.row] : []));
      await afterCommit({ ...done.outcome, changed: false });
      return done.outcome.row;
    },
  };
}
