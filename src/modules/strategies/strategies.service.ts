// Strategies: the admin read, and the paper → live evaluation the autopilot job runs.
import { audit } from './strategies.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { notFound } from '../../platform/http/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import {
  PROMOTION_RULES,
  promotionVerdict,
  transitionBudget,
  type StrategyMetrics,
  type StrategyStatus,
} from './strategies.domain.ts';
import type { StrategiesRepository, StrategyRow } from './strategies.repository.ts';
import type { StrategyDetail, Strategy, StrategyList, StrategyListQuery } from './strategies.schemas.ts';

const HOUR_MS = 3_600_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface PaperEvaluation {
  /** Strategies in paper trading that were judged. */
  evaluated: number;
  /** Those meeting every promotion rule. */
  eligible: number;
  promoted: number;
  /** Eligible but over the hourly transition limit: judged again on the next run. */
  deferred: number;
  /** Not (yet) meeting the rules. */
  held: number;
  limit_per_hour: number;
  /** Transitions already made in the hour before this run. */
  transitions_last_hour: number;
  promoted_ids: string[];
}

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

function toStrategy(row: StrategyRow): Strategy {
  return {
    id: row.id,
    name: row.name,
    owner_user_id: row.ownerUserId,
    status: row.status,
    paper_started_at: iso(row.paperStartedAt),
    live_started_at: iso(row.liveStartedAt),
    metrics: {
      paper_trades: num(row.metrics.paper_trades),
      win_rate: num(row.metrics.win_rate),
      return_pct: num(row.metrics.return_pct),
      max_drawdown_pct: num(row.metrics.max_drawdown_pct),
    },
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
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
    }): Promise<Strategy> {
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
      return toStrategy(row);
    },

    async list(query: StrategyListQuery): Promise<StrategyList> {
      const offset = (query.page - 1) * query.limit;
      const { rows, total } = await repo.list(query.status, offset, query.limit);
      return { strategies: rows.map(toStrategy), total, page: query.page, limit: query.limit };
    },

    async get(id: string): Promise<StrategyDetail> {
      const row = UUID.test(id) ? await repo.find(id) : undefined;
      if (!row) throw notFound('Strategy not found');
      const transitions = await repo.transitionsOf(row.id, 50);
      return {
        ...toStrategy(row),
        transitions: transitions.map((t) => ({ from: t.fromStatus, to: t.toStatus, at: iso(t.at)!, reason: t.reason })),
        promotion: row.status === 'paper' ? promotionVerdict(row, clock.now()) : null,
      };
    },

    /**
     * Promotes to `live` every paper strategy meeting the rules (PROMOTION_RULES), longest in paper
     * first, as long as fewer than `limitPerHour` transitions were made in the hour before `now`;
     * the rest are deferred to a later run. Each promotion is a transition row and an audit row.
     */
    async evaluatePaper(now: Date, limitPerHour: number): Promise<PaperEvaluation> {
      const candidates = await repo.inPaper();
      const eligible = candidates.filter((row) => promotionVerdict(row, now).eligible);
      const made = await repo.transitionsSince(new Date(now.getTime() - HOUR_MS));
      let budget = transitionBudget(limitPerHour, made);
      const promotedIds: string[] = [];
      for (const row of eligible) {
        if (budget === 0) break;
        const moved = await db.transaction(async (tx) => {
          const reason = `autopilot: paper rules met (${JSON.stringify(row.metrics)}; rules ${JSON.stringify(PROMOTION_RULES)})`;
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
        budget -= 1;
      }
      return {
        evaluated: candidates.length,
        eligible: eligible.length,
        promoted: promotedIds.length,
        deferred: eligible.length - promotedIds.length,
        held: candidates.length - eligible.length,
        limit_per_hour: limitPerHour,
        transitions_last_hour: made,
        promoted_ids: promotedIds,
      };
    },
  };
}

export type StrategiesService = ReturnType<typeof createStrategiesService>;
