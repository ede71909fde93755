// Strategies: the admin read, and the paper → live evaluation the autopilot job runs.
import { audit } from './strategies.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { notFound } from '../../platform/http/errors.ts';
import {
  PROMOTION_RULES,
  promotionVerdict,
  transitionBudget,
  type PromotionVerdict,
  type StrategyMetrics,
  type StrategyStatus,
} from './strategies.domain.ts';
import type { StrategiesRepository, StrategyRow, TransitionRow } from './strategies.repository.ts';
import type { StrategyListQuery } from './strategies.schemas.ts';
import { isUuid } from '../../platform/ids.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** One run of the paper → live evaluation. */
export interface PaperEvaluation {
  /** Strategies in paper trading that were judged. */
  evaluated: number;
  /** Those meeting every promotion rule. */
  eligible: number;
  promoted: number;
  /** Eligible but over the hourly transition limit: judged again on the next run. */
  deferred: number;
  /** Not (yet) meeting the rules. */
  held: number;
  limitPerHour: number;
  /** Transitions already made in the hour before this run. */
  transitionsLastHour: number;
  promotedIds: string[];
}

export interface StrategyPage {
  rows: StrategyRow[];
  total: number;
  page: number;
  limit: number;
}

/** A strategy with its recent transitions and, while in paper trading, the autopilot's verdict now. */
export interface StrategyWithTransitions {
  row: StrategyRow;
  transitions: TransitionRow[];
  promotion: PromotionVerdict | null;
}

export function createStrategiesService(deps: { db: Db; repo: StrategiesRepository; clock: Clock }) {
  const { db, repo, clock } = deps;

  return {
    /** Records a strategy; no HTTP route creates one yet (the paper-trading engine will). */
    async create(input: {
      name: string;
      ownerUserId?: string | null;
      status?: StrategyStatus;
      paperStartedAt?: Date | null;
      metrics?: StrategyMetrics;
    }): Promise<StrategyRow> {
      const now = clock.now();
      const status = input.status ?? 'draft';
      const row = await repo.insert({
        name: input.name,
        ownerUserId: input.ownerUserId ?? null,
        status,
        paperStartedAt: input.paperStartedAt ?? (status === 'paper' ? now : null),
        metrics: input.metrics ?? {},
        createdAt: now,
        updatedAt: now,
      });
      return row;
    },

    async list(query: StrategyListQuery): Promise<StrategyPage> {
      const offset = (query.page - 1) * query.limit;
      const { rows, total } = await repo.list(query.status, offset, query.limit);
      return { rows, total, page: query.page, limit: query.limit };
    },

    async get(id: string): Promise<StrategyWithTransitions> {
      const row = isUuid(id) ? await repo.find(id) : undefined;
      if (!row) throw notFound('Strategy not found');
      const transitions = await repo.transitionsOf(row.id, 50);
      return { row, transitions, promotion: row.status === 'paper' ? promotionVerdict(row, clock.now()) : null };
    },

    /**
     * Promotes to `live` every paper strategy meeting the rules (PROMOTION_RULES), longest in paper
     * first, as long as its owner made fewer than `limitPerHour` moves into or out of paper in the hour
     * before `now` (platform strategies count as one owner); the rest are deferred to a later run. Each promotion is a transition row and an audit row.
     * Without `promote` (LIVE_TRADING off: no strategy may trade live here, decision 1110) they are judged
     * and counted, and every eligible one is deferred.
     */
    async evaluatePaper(
      now: Date,
      limitPerHour: number,
      options: { promote?: boolean } = {},
    ): Promise<PaperEvaluation> {
      // Only the strategies it can promote are read (at most the limit of each owner), the others
      // counted (decision 851); the verdict is asked again of each, the rules' one reference.
      const startedBy = new Date(now.getTime() - PROMOTION_RULES.minPaperDays * DAY_MS);
      const [inPaper, promotable] = await Promise.all([repo.countInPaper(), repo.promotable(startedBy, limitPerHour)]);
      const eligible = promotable.rows.filter((row) => promotionVerdict(row, now).eligible);
      const since = new Date(now.getTime() - HOUR_MS);
      const made = await repo.transitionsSince(since);
      // The limit is each owner's (platform strategies share one): one user's strategies never spend
      // another's hour (decision 781).
      const moves = new Map((await repo.paperMovesSince(since)).map((m) => [m.ownerUserId, m.n]));
      const promotedIds: string[] = [];
      for (const row of options.promote === false ? [] : eligible) {
        const owner = row.ownerUserId;
        if (transitionBudget(limitPerHour, moves.get(owner) ?? 0) === 0) continue;
        const moved = await db.transaction(async (tx) => {
          const reason =
            `autopilot: paper rules met (${JSON.stringify(row.metrics)}; ` +
            `rules ${JSON.stringify(PROMOTION_RULES)})`;
          if (!(await repo.transition(row.id, { from: 'paper', to: 'live', at: now, reason }, tx))) return false;
          await audit(
            {
              actorType: 'job',
              action: 'strategy.promote',
              subjectUserId: row.ownerUserId,
              targetType: 'strategy',
              targetId: row.id,
              details: { from: 'paper', to: 'live', metrics: row.metrics },
            },
            now,
            tx,
          );
          return true;
        });
        if (!moved) continue;
        promotedIds.push(row.id);
        moves.set(owner, (moves.get(owner) ?? 0) + 1);
      }
      return {
        evaluated: inPaper,
        eligible: promotable.total,
        promoted: promotedIds.length,
        deferred: promotable.total - promotedIds.length,
        held: inPaper - promotable.total,
        limitPerHour,
        transitionsLastHour: made,
        promotedIds,
      };
    },
  };
}

export type StrategiesService = ReturnType<typeof createStrategiesService>;
