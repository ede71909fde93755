// The order state machine at work (docs/decisions/210, 212), as one object for the module: the cancel and
// the reconcile pass here, each other use case in its own file: the publication (order-publisher.ts), a
// move under the row's lock and a lookup (order-moves.service.ts), the paper and the live placement
// (paper-placement.service.ts, live-placement.service.ts).
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.ts';
import { unavailable } from '../../platform/http/errors.ts';
import type { Db, DbExecutor } from '../../platform/db/database.ts';
import type { OrderVenue, VenueOrderState } from '../../platform/order-venue.ts';
import type { OrderFillTrade } from '../exchange/index.ts';
import type { EventPublisher } from '../streams/index.ts';
import { createLivePlacement } from './live-placement.service.ts';
import { audit } from './orders.audit.ts';
import { isFinal } from './orders.domain.ts';
import type { ORDERS_EVENTS } from './orders.events.ts';
import { createOrderMoves } from './order-moves.service.ts';
import { createOrderPublisher } from './order-publisher.ts';
import type { OrdersRepository } from './orders.repository.ts';
import type { OrderRow } from './orders.rows.ts';
import { createPaperPlacement } from './paper-placement.service.ts';
import { answeredUnstored, type Mover, requestOf } from './order-updates.ts';

export type { FillListener } from './order-moves.service.ts';

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

/**
 * Orders one reconcile pass looks up, at most: a pass's venue calls go through the shared budget, and the
 * next pass takes the orders this one did not reach (decision 1300).
 */
export const RECONCILE_BATCH = 1000;

export function createOrderExecution(deps: ExecutionDeps) {
  const { db, repo, clock, logger } = deps;
  const { publish, hold } = createOrderPublisher(deps.events);
  const moves = createOrderMoves({
    db,
    repo,
    venue: deps.venue,
    recordFills: deps.recordFills,
    publish,
    clock,
    logger,
  });
  const { apply, resolve } = moves;
  const paper = createPaperPlacement({ db, repo, clock, publish, afterCommit: moves.afterCommit });
  const live = createLivePlacement({ repo, clock, logger, hold, moves });

  /**
   * The venue's answer to a cancel it carried out, applied. A database that fails now does not turn into an
   * error inviting a second cancel: the request answers the order as the venue left it, and the reconcile
   * pass's lookup stores it (decision 910, as 830 for a placement).
   */
  async function cancelAnswered(current: OrderRow, state: VenueOrderState, mover: Mover): Promise<OrderRow> {
    try {
      return await apply(current.id, { state }, mover);
    } catch (error) {
      logger.warn(
        { err: error, orderId: current.id },
        "the venue's answer to a cancel could not be stored: the reconcile pass stores it",
      );
      return answeredUnstored(current, state, clock.now());
    }
  }

  const execution = {
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
      if (result.kind === 'done') return cancelAnswered(current, result.state, mover);
      if (result.kind === 'not_found') return resolve(current, mover);
      logger.warn({ orderId: current.id, reason: result.reason }, 'cancel outcome unknown; the next pass looks it up');
      return current;
    },

    onFills: moves.onFills,
    placeInProcess: paper.placeInProcess,
    storeClaimed: live.storeClaimed,
    sendClaimed: live.sendClaimed,

    /**
     * One pass over every order of a mode that is not final: brought to the venue's state. Orders still
     * `pending` after `pendingGraceMs` were never claimed by their request (it stopped): rejected. An order
     * the venue answered for and left open is canceled when its user's trading is halted (`halted`, read
     * once per user in the pass): a halt's cancel that got no answer, or an order placed as the halt came
     * whose own check could not read it (decision 830).
     */
    async reconcile(
      mode: 'paper' | 'live',
      pendingGraceMs: number,
      halted?: (userId: string) => Promise<boolean>,
    ): Promise<{ checked: number; changed: number; unanswered: number; failed: number }> {
      if (!deps.venue(mode)) return { checked: 0, changed: 0, unanswered: 0, failed: 0 };
      const now = clock.now();
      const rows = await repo.toReconcile(mode, new Date(now.getTime() - pendingGraceMs), RECONCILE_BATCH, now);
      const halts = new Map<string, Promise<boolean>>();
      const haltedNow = (userId: string) => {
        if (!halts.has(userId)) halts.set(userId, halted ? halted(userId) : Promise.resolve(false));
        return halts.get(userId)!;
      };
      let changed = 0;
      let unanswered = 0;
      let failed = 0;
      for (const row of rows) {
        try {
          const after = await moves.lookUp(row, { actorId: null, actorType: 'job' });
          let current = after.row;
          if (after.answered && !isFinal(current.status) && (await haltedNow(row.userId)))
            current = await execution.cancel(current, { actorId: null, actorType: 'system' });
          if (!after.answered) {
            unanswered += 1;
            logger.warn(
              { orderId: row.id, exchange: row.exchange, reason: after.reason },
              'the venue left an order unanswered: the next pass asks again',
            );
          } else if (current.status !== row.status || current.filled !== row.filled) changed += 1;
        } catch (error) {
          failed += 1;
          logger.error({ err: error, orderId: row.id }, 'could not reconcile an order');
        }
      }
      return { checked: rows.length, changed, unanswered, failed };
    },
  };
  return execution;
}

export type OrderExecution = ReturnType<typeof createOrderExecution>;
