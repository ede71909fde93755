// Every query of the orders module, in one object, each use case's in its own file: the reads
// (order-queries), a move's writes under the row's lock (order-moves), the paper placement's and the live
// one's (paper-placement, live-placement). Status moves are conditional updates on the row's current
// status, so two instances (or a request and the reconcile job) applying the same venue state change it once.
import type { DbExecutor } from '../../platform/db/database.ts';
import { createLivePlacementRepository } from './live-placement.repository.ts';
import { createOrderMovesRepository } from './order-moves.repository.ts';
import { createOrderQueries } from './order-queries.repository.ts';
import { createPaperPlacementRepository } from './paper-placement.repository.ts';

export function createOrdersRepository(db: DbExecutor) {
  return {
    ...createOrderQueries(db),
    ...createOrderMovesRepository(db),
    ...createPaperPlacementRepository(),
    ...createLivePlacementRepository(db),
  };
}

export type OrdersRepository = ReturnType<typeof createOrdersRepository>;
