// The orders module (issue 39): every order, paper or live, through one state machine and one door
// (docs/decisions/210). Its port gives the reconcile pass to the jobs module.
import type { Platform } from '../../platform/platform.ts';
import type { OrdersDeps } from './orders.deps.ts';
import { createOrderExecution } from './order-execution.service.ts';
import { createOrdersRepository } from './orders.repository.ts';
import { createOrdersService } from './orders.service.ts';
import { ordersRoutes } from './routes/orders.routes.ts';

export { ORDERS_EVENTS } from './orders.events.ts';

/** How long an order may stay `pending` (stored, its request about to claim and send it) before a pass rejects it. */
const PENDING_GRACE_MS = 60_000;

export function createOrdersModule(platform: Platform, deps: OrdersDeps) {
  const { config, database, clock, logger } = platform;
  const db = database.db;
  const repo = createOrdersRepository(db);
  const { orders: exchange } = deps.exchange;
  const execution = createOrderExecution({
    db,
    repo,
    venue: (mode) => (mode === 'live' ? exchange.liveVenue : null),
    recordFills: exchange.recordFills,
    events: deps.events,
    clock,
    logger,
  });
  const service = createOrdersService({
    db,
    repo,
    execution,
    exchange,
    strategyOwner: deps.strategyOwner,
    clock,
  });
  const reconcile = async () => {
    const live = await execution.reconcile('live', PENDING_GRACE_MS);
    const paper = await execution.reconcile('paper', PENDING_GRACE_MS);
    return {
      checked: live.checked + paper.checked,
      changed: live.changed + paper.changed,
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
    },
    /** For the reconcile-orders job: one pass over every order not final. */
    reconcile,
    /** For the risk controls: cancel every order not final of a user (a halt cancels first). */
    service,
  };
}

export type OrdersModule = ReturnType<typeof createOrdersModule>;
