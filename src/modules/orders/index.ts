// The orders module (issue 39): every order, paper or live, through one state machine and one door
// (docs/decisions/210). Its port gives the reconcile pass to the jobs module.
import type { Platform } from '../../platform/platform.ts';
import { isVenue } from '../exchange/index.ts';
import type { HaltTarget } from '../trading/index.ts';
import type { OrdersDeps } from './orders.deps.ts';
import { createOrderExecution } from './order-execution.service.ts';
import { createOrdersRepository } from './orders.repository.ts';
import { createOrdersService } from './orders.service.ts';
import { ordersRoutes } from './routes/orders.routes.ts';
import { createDailyLossCheck } from './daily-loss.service.ts';
import { isFinal } from './orders.domain.ts';
import { cancelEach } from './cancel-all.service.ts';
import { bindJob } from '../../platform/jobs.ts';
import { reconcileOrdersCron, reconcileOrdersJob } from './reconcile-orders.job.ts';

export { ORDERS_EVENTS } from './orders.events.ts';

/** How long an order may stay `pending` (stored, its request about to claim and send it) before a pass rejects it. */
const PENDING_GRACE_MS = 60_000;
/**
 * Cancels cancel-all runs at once: a few, so that a venue that does not answer holds it for a few venue
 * timeouts, not one per order; each still passes the venue budget and a key's turn (decision 913).
 */
const CANCEL_ALL_CONCURRENCY = 4;

export function createOrdersModule(platform: Platform, deps: OrdersDeps) {
  const { config, database, clock, logger } = platform;
  const db = database.db;
  const repo = createOrdersRepository(db, config.trading.limitDefaults.dailyLossLimit);
  const { orders: exchange } = deps.exchange;
  const execution = createOrderExecution({
    db,
    repo,
    venue: (mode) => (mode === 'live' ? exchange.liveVenue : deps.paper.venue),
    recordFills: exchange.recordFills,
    events: deps.events,
    clock,
    logger,
  });
  // After each fill: the day's realized loss goes to the risk controls (past the limit, a halt). The day's
  // fills are read only for a user with a daily loss limit; the limits are those the statement storing the
  // fills read, when it read them (decision 461). The check is owed in the database from the fill's own
  // write; one that failed, or that a stopped process never made, is made by the pass or before the user's
  // next order (decisions 911, 1030).
  const dailyLoss = createDailyLossCheck({ repo, controls: deps.controls, clock, logger });
  const cancelAll = { concurrency: CANCEL_ALL_CONCURRENCY, deadlineMs: 2 * config.exchange.timeoutMs };
  const service = createOrdersService({
    repo,
    execution,
    exchange,
    controls: deps.controls,
    strategies: deps.strategies,
    paperMarket: deps.paper.offlineMarket,
    clock,
    logger,
    cancelAll,
    settleDailyLoss: dailyLoss.settleUser,
    liveTrading: config.orders.liveTrading,
  });

  // A halt cancels first (the controls refuse new orders after): every order not final of the target, a few
  // at a time and none started after the deadline, as cancel-all does (decisions 913, 1031).
  const notFinal = (target: HaltTarget) =>
    'platform' in target ? repo.notFinalAll() : repo.notFinalOf({ userId: target.userId });
  deps.controls.onHalt(
    async (target) => {
      const system = { actorId: null, actorType: 'system' } as const;
      const done = await cancelEach(
        await notFinal(target),
        (order) => execution.cancel(order, system),
        cancelAll,
        (error, order) => logger.error({ err: error, orderId: order.id }, 'a halt could not cancel an order'),
      );
      // Those it left final some other way (filled meanwhile) are neither canceled nor failed.
      return { canceled: done.canceled.filter((o) => o.status === 'canceled').length, failed: done.failed.length };
    },
    {
      // The venue library loaded for the venues of the live orders to cancel, before the listener's bound
      // starts: a process's first use of it is not the cancels' time (decisions 700, 801).
      ready: async (target) => {
        const live = (await notFinal(target)).filter((o) => o.mode === 'live').map((o) => o.exchange);
        const venues = new Set(live.filter(isVenue));
        await Promise.all([...venues].map((venue) => exchange.ready(venue)));
      },
    },
  );

  // A resting paper order filled as the price went through it (or an account reset canceled it): the
  // engine says so, and the order is looked up like any venue's.
  deps.paper.onOrderChanged((change) => {
    void (async () => {
      const row = await repo.byClientOrderId(change.userId, change.clientOrderId);
      if (row && !isFinal(row.status)) await execution.resolve(row);
    })().catch((error: unknown) => logger.error({ err: error, change }, 'could not apply a paper order change'));
  });

  // After a paper fill of an order that names a strategy: the strategy's figures, from its new fills (decision 850).
  execution.onFills(async (order, fills) => {
    if (order.mode !== 'paper' || !order.strategyId) return;
    await deps.strategies.recordFills(
      order.strategyId,
      fills.map((f) => ({
        tradeId: f.tradeId,
        orderId: order.id,
        symbol: order.symbol,
        side: order.side,
        price: f.price,
        amount: f.amount,
        fee: f.fee,
        feeCurrency: f.feeCurrency,
        at: f.at,
      })),
    );
  });

  execution.onFills((order, _fills, limits) => dailyLoss.afterFill(order.userId, order.mode, limits));
  // An order left open under a halt is the pass's to cancel (decision 830).
  const halted = async (userId: string) => (await deps.controls.status(userId)).halted;
  const reconcile = async () => {
    // The daily loss checks owed first (by this or any process): a halt they find is canceled by the pass below.
    await dailyLoss.recheck();
    const live = await execution.reconcile('live', PENDING_GRACE_MS, halted);
    const paper = await execution.reconcile('paper', PENDING_GRACE_MS, halted);
    return {
      checked: live.checked + paper.checked,
      changed: live.changed + paper.changed,
      unanswered: live.unanswered + paper.unanswered,
      failed: live.failed + paper.failed,
    };
  };

  return {
    name: 'orders',
    routes: ordersRoutes({
      service,
      guards: deps.guards,
      liveTrading: config.orders.liveTrading,
      stepUpMaxAgeMinutes: config.auth.stepUpMaxAgeMinutes,
    }),
    hooks: {
      // On start, every order left not final (a stop between send and answer) is brought to the venue's state.
      listening() {
        void reconcile().catch((error: unknown) => logger.error({ err: error }, 'start-up order reconcile failed'));
      },
      closed: () => dailyLoss.close(),
    },
    /** One pass over every order not final (its job's, and the start's). */
    reconcile,
    // Its period is ORDER_RECONCILE_SECONDS unless SCHEDULER_CRONS names one.
    jobs: [
      bindJob(
        reconcileOrdersJob,
        { orders: { reconcile } },
        { cron: reconcileOrdersCron(config.orders.reconcileSeconds) },
      ),
    ],
    /** For the risk controls: cancel every order not final of a user (a halt cancels first). */
    service,
  };
}

export type OrdersModule = ReturnType<typeof createOrdersModule>;

/** What the module contributes to the app and the database (decision 230). */
export { ORDERS_MODULE } from './orders.module.ts';
