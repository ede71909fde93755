// A user's own strategies (docs/decisions/216): created straight into paper trading, read only by
// their owner, and their figures refreshed from the fills of their paper orders, which the orders
// module reports here after each paper fill.
import type { Actor } from '../../platform/auth/actor.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db, DbExecutor } from '../../platform/db/database.ts';
import { notFound, rateLimited } from '../../platform/http/errors.ts';
import { isUuid } from '../../platform/ids.ts';
import { inFigureOrder, type MetricsFill } from './metrics.domain.ts';
import { foldFills, type MetricsState, metricsOf, stateOfFills } from './metrics-fold.domain.ts';
import {
  allLots,
  carryOverLots,
  type LotWindow,
  lotDemand,
  lotWrites,
  readEnough,
  withoutLots,
} from './metrics-lots.domain.ts';
import { audit } from './strategies.audit.ts';
import { promotionVerdict, type StrategyMetrics } from './strategies.domain.ts';
import type { StrategiesRepository, StrategyRow } from './strategies.repository.ts';
import type { StrategyPage, StrategyWithTransitions } from './strategies.service.ts';

/** One fill of a strategy's order, as the orders module records it (decimals as strings). */
export type StrategyFill = MetricsFill;

const HOUR_MS = 3_600_000;

export function createUserStrategiesService(deps: {
  db: Db;
  repo: StrategiesRepository;
  clock: Clock;
  /** The platform limits in force: `paper_transition_per_hour` bounds each user's moves into or out of paper. */
  platformLimits: () => Promise<{ paper_transition_per_hour: number }>;
}) {
  const { db, repo, clock } = deps;

  async function owned(id: string, userId: string): Promise<StrategyRow> {
    const row = isUuid(id) ? await repo.find(id) : undefined;
    // Another user's strategy is as unknown as a missing one.
    if (!row || row.ownerUserId !== userId) throw notFound('Strategy not found');
    return row;
  }

  /**
   * Puts in `state.lots`, per symbol of `fills`, its oldest open lots until they hold what the sells
   * may close (or are all), in batches doubling from 8; answers what was found, for lotWrites.
   */
  async function readLots(
    strategyId: string,
    state: MetricsState,
    fills: readonly StrategyFill[],
    tx: DbExecutor,
  ): Promise<Map<string, LotWindow>> {
    const windows = new Map<string, LotWindow>();
    for (const [symbol, demand] of lotDemand(fills)) {
      const window: LotWindow = { numbers: state.numbers[symbol] ?? [0, 0], read: [] };
      for (let batch = 8; !readEnough(window, demand); batch *= 2) {
        const from = window.numbers[0] + window.read.length;
        const rows = await repo.lotsFrom(strategyId, symbol, from, batch, tx);
        window.read.push(...rows);
        if (rows.length < batch) break;
      }
      state.lots[symbol] = [...window.read];
      windows.set(symbol, window);
    }
    return windows;
  }

  return {
    /**
     * A new strategy goes straight into paper: a move into paper trading, of which a user makes at most
     * `paper_transition_per_hour` an hour (decision 781); past it 429, with when the oldest leaves the hour.
     */
    async create(name: string, actor: Actor): Promise<StrategyRow> {
      const now = clock.now();
      const { paper_transition_per_hour: limit } = await deps.platformLimits();
      return db.transaction(async (tx) => {
        await repo.lockOwnerMoves(actor.id, tx);
        const [moves] = await repo.paperMovesSince(new Date(now.getTime() - HOUR_MS), actor.id, tx);
        if (moves && moves.n >= limit) {
          throw rateLimited(
            (moves.oldest.getTime() + HOUR_MS - now.getTime()) / 1000,
            `At most ${limit} strategy moves into or out of paper trading an hour; try again later`,
          );
        }
        const row = await repo.insert(
          {
            name,
            ownerUserId: actor.id,
            status: 'paper',
            paperStartedAt: now,
            metrics: {},
            createdAt: now,
            updatedAt: now,
          },
          tx,
        );
        await audit(
          {
            actorId: actor.id,
            actorType: 'user',
            action: 'strategy.create',
            subjectUserId: actor.id,
            targetType: 'strategy',
            targetId: row.id,
            ip: actor.ip ?? null,
            details: { name, status: row.status },
          },
          now,
          tx,
        );
        return row;
      });
    },

    async list(userId: string, query: { page: number; limit: number }): Promise<StrategyPage> {
      const { rows, total } = await repo.list(undefined, (query.page - 1) * query.limit, query.limit, userId);
      return { rows, total, page: query.page, limit: query.limit };
    },

    async get(id: string, userId: string): Promise<StrategyWithTransitions> {
      const row = await owned(id, userId);
      const transitions = await repo.transitionsOf(row.id, 50);
      return { row, transitions, promotion: row.status === 'paper' ? promotionVerdict(row, clock.now()) : null };
    },

    isOwnedBy: (strategyId: string, userId: string): Promise<boolean> =>
      isUuid(strategyId) ? repo.isOwnedBy(strategyId, userId) : Promise.resolve(false),

    /**
     * Stores the fills (a fill reported again is stored once) and adds the new ones to the strategy's
     * figures, under the strategy's row lock (decision 850): from the state stored with them, or from all
     * its fills when that cannot give the same figures (no state yet, a fill ordered before one counted,
     * a later fill of an order whose round trip is not the last). The open lots are read from the oldest,
     * only as many as the report's sells may close, and only what changed is written (decision 930).
     * Answers the figures, or null for an unknown strategy.
     */
    async recordFills(strategyId: string, fills: readonly StrategyFill[]): Promise<StrategyMetrics | null> {
      if (!isUuid(strategyId)) return null;
      const now = clock.now();
      return db.transaction(async (tx) => {
        const stored = await repo.lockFigures(strategyId, tx);
        if (!stored) return null;
        const added = await repo.insertFills(
          fills.map((f) => ({ strategyId, ...f })),
          tx,
        );
        if (added.length === 0) return stored.metrics;
        const fresh = inFigureOrder(added);
        let state = stored.metricsState;
        if (state) {
          // A state stored before decision 930 holds its lots: they move to their table, once.
          const carried = carryOverLots(state);
          if (carried) await repo.replaceLots(strategyId, carried, tx);
        }
        const orders = [...new Set(fresh.map((f) => f.orderId))];
        const windows = state && (await readLots(strategyId, state, fresh, tx));
        const folded =
          state !== null &&
          foldFills(
            state,
            fresh,
            await repo.ordersFilledBefore(
              strategyId,
              orders,
              fresh.map((f) => f.tradeId),
              tx,
            ),
          );
        if (folded) await repo.writeLots(strategyId, lotWrites(windows!, state!), tx);
        else {
          state = stateOfFills(await repo.fillsOf(strategyId, tx));
          await repo.replaceLots(strategyId, allLots(state), tx);
        }
        const metrics = metricsOf(state!);
        await repo.setMetrics(strategyId, { metrics, metricsState: withoutLots(state!) }, now, tx);
        return metrics;
      });
    },
  };
}

export type UserStrategiesService = ReturnType<typeof createUserStrategiesService>;
