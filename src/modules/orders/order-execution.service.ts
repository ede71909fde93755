// The order state machine at work (docs/decisions/210, 212): sending a stored order once, applying what
// the venue says of it, resolving `unknown` by a lookup of its client order id, and the reconcile pass.
// Every change happens under the row's lock, records new fills once (by venue trade id), is audited
// in the same transaction and published on the account stream after it commits.
import type { Logger } from 'pino';
import { clientOrderIdRule } from '../../platform/client-order-ids.ts';
import type { Clock } from '../../platform/clock.ts';
import { unavailable } from '../../platform/http/errors.ts';
import type { Db, DbExecutor } from '../../platform/db/database.ts';
import type { OrderVenue, ResolvedCredential } from '../../platform/order-venue.ts';
import type { OrderFillTrade } from '../exchange/index.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { AuditEvent } from '../../platform/audit.ts';
import { audit, auditRows, type ORDERS_AUDIT_ACTIONS } from './orders.audit.ts';
import { canMove, isFinal, newFills, progressFrom, type OrderStatus } from './orders.domain.ts';
import type { ORDERS_EVENTS } from './orders.events.ts';
import type { OrdersRepository } from './orders.repository.ts';
import { storedOrder, type FillRow, type NewOrder, type OrderRow } from './orders.rows.ts';
import { orderWire } from './orders.wire.ts';
import {
  fillOf,
  type Mover,
  patchFor,
  requestOf,
  settleNew,
  storedAmount,
  SYSTEM,
  transitionEntry,
  type Update,
} from './order-updates.ts';

type OrdersAuditAction = (typeof ORDERS_AUDIT_ACTIONS)[number];

/** What a fill hands on after it is stored (realized loss, strategy figures). */
export type FillListener = (order: OrderRow, fills: FillRow[]) => Promise<void>;

export interface ExecutionDeps {
  db: Db;
  repo: OrdersRepository;
  /** The venue of a mode; null while that mode is not available. */
  venue(mode: 'paper' | 'live'): OrderVenue | null;
  recordFills(fills: OrderFillTrade[], executor: DbExecutor): Promise<number>;
  events: Pick<EventPublisher<typeof ORDERS_EVENTS>, 'userEach'>;
  clock: Clock;
  logger: Pick<Logger, 'warn' | 'error' | 'info'>;
}

/** Thrown inside a paper order's transaction when another request stored an order with its key: rolls back. */
const KEY_TAKEN = new Error('idempotency_taken');

/** How long a live order's states before its send wait for the venue's answer to go out with it. */
const CLAIMED_EVENTS_HELD_MS = 250;

export function createOrderExecution(deps: ExecutionDeps) {
  const { db, repo, clock, logger } = deps;
  const fillListeners: FillListener[] = [];

  async function transition(tx: DbExecutor, row: OrderRow, from: OrderStatus, mover: Mover, now: Date) {
    await audit(transitionEntry(row, from, mover), now, tx);
  }

  /**
   * Each order's events are stored one after another, in the order of its changes: two inserts at once
   * on two pooled connections could take their ids the other way round. The states committed together
   * (decisions 270, 272) are given at once and stored in one statement, in their order (decision 321).
   */
  const publishing = new Map<string, Promise<void>>();
  /**
   * A live order's states committed before its send, held back for a moment (decision 345): when the
   * venue answers within it, they go out with the state its answer brings, in one insert and one bus
   * call, where two of each took twice the statements. Any later publication of the order takes them
   * first, so the events keep the order of the changes; past the moment, they go out alone.
   */
  const held = new Map<string, { rows: OrderRow[]; timer: NodeJS.Timeout }>();
  function hold(rows: [OrderRow, ...OrderRow[]]): void {
    const id = rows[0].id;
    const timer = setTimeout(() => {
      if (held.get(id)?.timer !== timer) return;
      held.delete(id);
      publish(...rows);
    }, CLAIMED_EVENTS_HELD_MS).unref();
    held.set(id, { rows, timer });
  }
  function publish(...given: [OrderRow, ...OrderRow[]]): void {
    const waiting = held.get(given[0].id);
    if (waiting) {
      clearTimeout(waiting.timer);
      held.delete(given[0].id);
    }
    const rows = waiting ? [...waiting.rows, ...given] : given;
    const first = given[0];
    const wires = rows.map(orderWire);
    const previous = publishing.get(first.id) ?? Promise.resolve();
    const next = previous.then(() => deps.events.userEach(first.userId, 'order.updated', wires));
    publishing.set(first.id, next);
    void next.then(() => {
      if (publishing.get(first.id) === next) publishing.delete(first.id);
    });
  }

  type Outcome = { row: OrderRow; changed: boolean; fills: FillRow[] };
  /** The row version (`xmin`) of each claimed order as its claim stored it, until its answer (decision 420). */
  const claimedVersions = new WeakMap<OrderRow, string>();

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
    return { row, changed: true, fills: inserted };
  }

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
    const row = await repo.insertFinished({ ...claimed, ...settled?.patch }, fills, auditRows(entries, now), tx);
    if (row === 'idempotency_taken') throw KEY_TAKEN;
    return { row, changed: settled !== null, fills };
  }

  /** After the commit: the change published, new fills handed to the listeners. */
  async function afterCommit(outcome: Outcome): Promise<void> {
    if (outcome.changed) publish(outcome.row);
    if (outcome.fills.length > 0)
      for (const listener of fillListeners)
        await listener(outcome.row, outcome.fills).catch((error: unknown) =>
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
    const venue = deps.venue(row.mode);
    if (!venue || isFinal(row.status)) return row;
    // Claimed by its sender meanwhile, it is left as it is for the next pass's lookup.
    if (row.status === 'pending')
      return apply(row.id, { rejected: 'never sent: the service stopped first', whilePending: true }, mover);
    const result = await venue.lookup(requestOf(row));
    if (result.kind === 'found') return apply(row.id, { state: result.state }, mover);
    if (result.kind === 'unknown') return row;
    const sentAt = (row.sentAt ?? row.createdAt).getTime();
    if (row.status === 'unknown' && clock.now().getTime() - sentAt > clientOrderIdRule(row.exchange).receiveWindowMs) {
      return apply(
        row.id,
        { rejected: 'the venue never received it: no order with its client order id after its receive window' },
        mover,
      );
    }
    if (row.status !== 'unknown')
      logger.warn({ orderId: row.id, status: row.status }, 'the venue no longer knows an order it accepted');
    return row;
  }

  return {
    apply,
    resolve,
    publish,
    venueOf: deps.venue,

    /**
     * Cancels at the venue and applies what it answers. An order the venue no longer has open (filled or
     * canceled meanwhile, Binance's -2011) is looked up instead, so it ends in the venue's own state.
     */
    async cancel(order: OrderRow, mover: Mover): Promise<OrderRow> {
      const venue = deps.venue(order.mode);
      if (!venue) throw unavailable(`${order.mode} trading is not available now`);
      await audit(
        {
          actorId: mover.actorId,
          actorType: mover.actorType,
          action: 'order.cancel',
          subjectUserId: order.userId,
          targetType: 'order',
          targetId: order.id,
          details: { status: order.status, mode: order.mode },
          ip: mover.ip ?? null,
        },
        clock.now(),
        db,
      );
      let current = order;
      if (current.status === 'pending') {
        // Not yet claimed by its sender: canceled under the row's lock, so the sender's claim finds nothing
        // to send. Claimed meanwhile, it may have left: the venue decides, as for any order sent.
        current = await apply(order.id, { canceled: 'canceled before it was sent' }, mover);
        if (isFinal(current.status)) return current;
      }
      if (current.status === 'unknown') {
        current = await resolve(current, mover);
        if (isFinal(current.status) || current.status === 'unknown') return current;
      }
      const result = await venue.cancel(requestOf(current));
      if (result.kind === 'done') return apply(current.id, { state: result.state }, mover);
      if (result.kind === 'not_found') return resolve(current, mover);
      logger.warn({ orderId: current.id, reason: result.reason }, 'cancel outcome unknown; the next pass looks it up');
      return current;
    },

    onFills(listener: FillListener): void {
      fillListeners.push(listener);
    },

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

    /**
     * A new order for a venue outside the process (live): stored already claimed for sending, with its
     * client order id and audit entries (`order.place`, `pending→unknown`), in one statement that
     * commits before anything is sent (decisions 272, 385). Only this request sends it: nothing else sends an
     * order, and a pass finding it `unknown` looks it up. Answers the stored order, or
     * 'idempotency_taken' when another request stored one with the same key first.
     */
    async storeClaimed(
      order: NewOrder & Pick<OrderRow, 'status'>,
      placed: AuditEvent<OrdersAuditAction>,
      mover: Mover,
    ): Promise<OrderRow | 'idempotency_taken'> {
      const now = clock.now();
      // The row as it is stored (the entry names its amount filled as the database writes it).
      const stored = { ...order, status: 'unknown', sentAt: now, filled: storedAmount('0'), reason: null } as OrderRow;
      const entries = auditRows([placed, transitionEntry(stored, 'pending', mover)], now);
      const inserted = await repo.insertAudited({ ...order, status: 'unknown', sentAt: now }, entries);
      if (inserted === 'idempotency_taken') return inserted;
      const claimed = inserted.row;
      claimedVersions.set(claimed, inserted.version);
      // Both states, in order, as when they were committed one by one; with the answer's if it comes soon.
      hold([{ ...claimed, status: 'pending', sentAt: null }, claimed]);
      return claimed;
    },

    /**
     * Sends an order its caller claimed (`unknown`, stored and committed), once, and applies the answer;
     * with the credential the caller read for it, if any (decision 345).
     */
    async sendClaimed(
      claimed: OrderRow,
      venue: OrderVenue,
      mover: Mover,
      credential?: ResolvedCredential,
    ): Promise<OrderRow> {
      const result = await venue.submit({ ...requestOf(claimed), ...(credential ? { credential } : {}) });
      // The claim was flushed before the send; the answer is the venue's to tell again, by the order's client
      // order id, should the database lose it: its commit does not wait for the disk (decision 386).
      if (result.kind !== 'unknown') {
        const update = result.kind === 'accepted' ? { state: result.state } : { rejected: result.reason };
        // One statement while the row is as its claim left it; else under its lock (decision 420).
        const version = claimedVersions.get(claimed);
        const settled = version === undefined ? null : settleNew(claimed, update, mover, clock.now());
        if (version !== undefined && settled) {
          const { patch, fills, entry } = settled;
          const entries = auditRows(entry ? [entry] : [], patch.updatedAt);
          const row = await repo.finishClaimed(claimed.id, version, patch, fills, entries);
          if (row) {
            await afterCommit({ row, changed: true, fills });
            return row;
          }
        }
        return apply(claimed.id, update, mover, 'unflushed');
      }
      logger.warn({ orderId: claimed.id, reason: result.reason }, 'order outcome unknown; looking it up');
      return resolve(claimed, mover);
    },

    /**
     * One pass over every order of a mode that is not final: brought to the venue's state. Orders still
     * `pending` after `pendingGraceMs` were never claimed by their request (it stopped): rejected.
     */
    async reconcile(
      mode: 'paper' | 'live',
      pendingGraceMs: number,
    ): Promise<{ checked: number; changed: number; failed: number }> {
      if (!deps.venue(mode)) return { checked: 0, changed: 0, failed: 0 };
      const now = clock.now();
      const rows = await repo.toReconcile(mode, new Date(now.getTime() - pendingGraceMs), 1000);
      let changed = 0;
      let failed = 0;
      for (const row of rows) {
        try {
          const after = await resolve(row, { actorId: null, actorType: 'job' });
          if (after.status !== row.status || after.filled !== row.filled) changed += 1;
        } catch (error) {
          failed += 1;
          logger.error({ err: error, orderId: row.id }, 'could not reconcile an order');
        }
      }
      return { checked: rows.length, changed, failed };
    },
  };
}

export type OrderExecution = ReturnType<typeof createOrderExecution>;
