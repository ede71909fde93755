// An order brought to the venue's state (or canceled, or rejected) under its row's lock, once: its new
// fills recorded once by venue trade id (a live order's also as the user's trades), its transition audited
// in the same transaction, the change published and the fills handed on after the commit; and an order
// resolved by a lookup of its client order id at its venue (docs/decisions/210, 212).
import type { Logger } from 'pino';
import { clientOrderIdRule } from '../../platform/client-order-ids.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db, DbExecutor } from '../../platform/db/database.ts';
import { type OrderVenue, SIGN_WITHIN_MS } from '../../platform/order-venue.ts';
import type { OrderFillTrade } from '../exchange/index.ts';
import type { DailyLossLimits } from '../trading/index.ts';
import { audit } from './orders.audit.ts';
import { canMove, isFinal, newFills, progressFrom, type OrderStatus } from './orders.domain.ts';
import type { OrderPublisher } from './order-publisher.ts';
import type { OrdersRepository } from './orders.repository.ts';
import type { FillRow, OrderRow } from './orders.rows.ts';
import { fillOf, type Mover, patchFor, requestOf, SYSTEM, transitionEntry, type Update } from './order-updates.ts';

/**
 * What a fill hands on after it is stored (realized loss, strategy figures); `dailyLoss`: the daily loss
 * limits as the statement storing the fills read them, when it did (decision 461).
 */
export type FillListener = (order: OrderRow, fills: FillRow[], dailyLoss?: DailyLossLimits) => Promise<void>;

/**
 * A move's result: the row after it, whether it changed, the fills it stored, and the daily loss limits its
 * statement read with them, if it read them.
 */
export type Outcome = { row: OrderRow; changed: boolean; fills: FillRow[]; dailyLoss?: DailyLossLimits };

export interface OrderMovesDeps {
  db: Db;
  repo: Pick<OrdersRepository, 'lockWithFills' | 'update' | 'insertFills' | 'oweDailyLossCheck'>;
  /** The venue of a mode; null while that mode is not available. */
  venue(mode: 'paper' | 'live'): OrderVenue | null;
  recordFills(fills: OrderFillTrade[], executor: DbExecutor): Promise<number>;
  publish: OrderPublisher['publish'];
  clock: Clock;
  logger: Pick<Logger, 'warn' | 'error'>;
}

export function createOrderMoves(deps: OrderMovesDeps) {
  const { db, repo, clock, logger, publish } = deps;
  const fillListeners: FillListener[] = [];

  async function transition(tx: DbExecutor, row: OrderRow, from: OrderStatus, mover: Mover, now: Date) {
    await audit(transitionEntry(row, from, mover), now, tx);
  }

  /** Brings `current` (locked, its fills `stored` read with the lock) to the update, in the caller's transaction. */
  async function applyWithin(
    tx: DbExecutor,
    current: OrderRow,
    stored: FillRow[],
    update: Update,
    mover: Mover,
    now: Date,
  ): Promise<Outcome> {
    const orderId = current.id;
    if (isFinal(current.status)) return { row: current, changed: false, fills: [] };
    if (!('state' in update)) {
      const to = 'canceled' in update ? 'canceled' : 'rejected';
      const onlyPending = 'canceled' in update || update.whilePending === true;
      if (!canMove(current.status, to) || (onlyPending && current.status !== 'pending'))
        return { row: current, changed: false, fills: [] };
      const reason = 'canceled' in update ? update.canceled : update.rejected;
      const row = await repo.update(orderId, { status: to, reason, notFinal: false, updatedAt: now }, tx);
      await transition(tx, row, current.status, mover, now);
      return { row, changed: true, fills: [] };
    }
    const { state } = update;
    const fresh = newFills(
      stored.map((f) => f.tradeId),
      state.fills,
    );
    const inserted = await repo.insertFills(
      fresh.map((f) => fillOf(orderId, f)),
      tx,
    );
    const progress = progressFrom(current, state);
    if (!progress && inserted.length === 0) return { row: current, changed: false, fills: [] };
    const patch = patchFor(current, progress, [...stored, ...inserted], now);
    const status = patch.status;
    const row = await repo.update(orderId, patch, tx);
    // Live fills are the user's trades at the venue: stored where trade sync stores them, once.
    if (row.mode === 'live' && inserted.length > 0) {
      await deps.recordFills(
        inserted.map((f) => ({
          userId: row.userId,
          exchange: row.exchange,
          credentialId: row.credentialId,
          symbol: row.symbol,
          side: row.side,
          tradeId: f.tradeId,
          price: f.price,
          amount: f.amount,
          fee: f.fee,
          feeCurrency: f.feeCurrency,
          at: f.at,
        })),
        tx,
      );
    }
    if (status !== current.status) await transition(tx, row, current.status, mover, now);
    // The daily loss check after the commit, owed in this transaction: a stop before it leaves it to the pass (1030).
    if (inserted.length > 0) await repo.oweDailyLossCheck(row.userId, row.mode, now, tx);
    return { row, changed: true, fills: inserted };
  }

  /** After the commit: the change published, new fills handed to the listeners. */
  async function afterCommit(outcome: Outcome): Promise<void> {
    if (outcome.changed) publish(outcome.row);
    if (outcome.fills.length > 0)
      for (const listener of fillListeners)
        await listener(outcome.row, outcome.fills, outcome.dailyLoss).catch((error: unknown) =>
          logger.error({ err: error, orderId: outcome.row.id }, 'a fill listener failed'),
        );
  }

  /**
   * Brings the order to the venue's state (or rejects it), once, under its lock. `unflushed`: the commit
   * does not wait for the disk (decision 386), for a change the venue can tell again.
   */
  async function apply(
    orderId: string,
    update: Update,
    mover: Mover = SYSTEM,
    commit: 'flushed' | 'unflushed' = 'flushed',
  ): Promise<OrderRow> {
    const now = clock.now();
    const outcome = await db.transaction(async (tx) => {
      const locked = await repo.lockWithFills(orderId, tx, commit);
      if (!locked) throw new Error(`order ${orderId} vanished`);
      return applyWithin(tx, locked.row, locked.fills, update, mover, now);
    });
    await afterCommit(outcome);
    return outcome.row;
  }

  /**
   * Looks the order up by its client order id and applies the answer. An order the venue does not know
   * is rejected only once the venue's receive window since its send has passed: until then the request
   * may still arrive. A venue that does not answer leaves it as it is, for the next pass.
   */
  async function resolve(row: OrderRow, mover: Mover = SYSTEM): Promise<OrderRow> {
    return (await lookUp(row, mover)).row;
  }

  /**
   * `resolve`, saying whether the venue answered (and why not): a pass counts the orders it had to leave
   * unanswered.
   */
  async function lookUp(
    row: OrderRow,
    mover: Mover = SYSTEM,
  ): Promise<{ row: OrderRow; answered: true } | { row: OrderRow; answered: false; reason: string }> {
    const venue = deps.venue(row.mode);
    if (!venue || isFinal(row.status)) return { row, answered: true };
    // Claimed by its sender meanwhile, it is left as it is for the next pass's lookup.
    if (row.status === 'pending') {
      const rejected = await apply(
        row.id,
        { rejected: 'never sent: the service stopped first', whilePending: true },
        mover,
      );
      return { row: rejected, answered: true };
    }
    const result = await venue.lookup(requestOf(row));
    if (result.kind === 'found') return { row: await apply(row.id, { state: result.state }, mover), answered: true };
    if (result.kind === 'unknown') return { row, answered: false, reason: result.reason };
    // The send may be signed up to SIGN_WITHIN_MS after its claim, and taken for the receive window after that.
    const sentAt = (row.sentAt ?? row.createdAt).getTime();
    const givenUpAfter = clientOrderIdRule(row.exchange).receiveWindowMs + SIGN_WITHIN_MS;
    if (row.status === 'unknown' && clock.now().getTime() - sentAt > givenUpAfter) {
      const rejected = await apply(
        row.id,
        { rejected: 'the venue never received it: no order with its client order id after its receive window' },
        mover,
      );
      return { row: rejected, answered: true };
    }
    if (row.status !== 'unknown')
      logger.warn({ orderId: row.id, status: row.status }, 'the venue no longer knows an order it accepted');
    return { row, answered: true };
  }

  return {
    apply,
    resolve,
    lookUp,
    afterCommit,
    onFills(listener: FillListener): void {
      fillListeners.push(listener);
    },
  };
}

export type OrderMoves = ReturnType<typeof createOrderMoves>;
