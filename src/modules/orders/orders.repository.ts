// Every query of the orders module, in one object, each use case's in its own file: the reads
// (order-queries), a move's writes under the row's lock (order-moves), the paper placement's and the live
// one's (paper-placement, live-placement), the daily loss checks owed (daily-loss-owed). Status moves are conditional updates on the row's current
// status, so two instances (or a request and the reconcile job) applying the same venue state change it once.
import type { DbExecutor } from '../../platform/db/database.ts';
import { createDailyLossOwedRepository } from './daily-loss-owed.repository.ts';
import { createLivePlacementRepository } from './live-placement.repository.ts';
import { createOrderMovesRepository } from './order-moves.repository.ts';
import { createOrderQueries } from './order-queries.repository.ts';
import { createPaperPlacementRepository } from './paper-placement.repository.ts';

/** `dailyLossDefault`: the configured default daily loss limit, which decides with a fill whether its check is owed (decision 1030). */
export function createOrdersRepository(db: DbExecutor, dailyLossDefault: string | null) {
  return {
    ...createOrderQueries(db),
    ...createOrderMovesRepository(db),
    ...createPaperPlacementRepository(dailyLossDefault),
    ...createLivePlacementRepository(db, dailyLossDefault),
    ...createDailyLossOwedRepository(db, dailyLossDefault),
  };
}

export type OrdersRepository = ReturnType<typeof createOrdersRepository>;
