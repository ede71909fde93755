// The strategies module's answers on the wire: its service returns strategy rows and their
// transitions, and the admin routes answer them through these mappers, each typed by its response
// schema.
import { iso } from '../../platform/http/schemas.ts';
import type { StrategyRow, TransitionRow } from './strategies.repository.ts';
import type { Strategy, StrategyDetail, StrategyList, StrategyTransition } from './strategies.schemas.ts';
import type { StrategyWithTransitions, StrategyPage } from './strategies.service.ts';

/** A stored figure as the API shows it: a finite number, else null (not reported, or not a number). */
const figure = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

export function strategyWire(row: StrategyRow): Strategy {
  return {
    id: row.id,
    name: row.name,
    owner_user_id: row.ownerUserId,
    status: row.status,
    paper_started_at: iso(row.paperStartedAt),
    live_started_at: iso(row.liveStartedAt),
    metrics: {
      paper_trades: figure(row.metrics.paper_trades),
      win_rate: figure(row.metrics.win_rate),
      return_pct: figure(row.metrics.return_pct),
      max_drawdown_pct: figure(row.metrics.max_drawdown_pct),
    },
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}

export function strategyListWire(page: StrategyPage): StrategyList {
  return { strategies: page.rows.map(strategyWire), total: page.total, page: page.page, limit: page.limit };
}

function transitionWire(row: TransitionRow): StrategyTransition {
  return { from: row.fromStatus, to: row.toStatus, at: iso(row.at)!, reason: row.reason };
}

export function strategyDetailWire(detail: StrategyWithTransitions): StrategyDetail {
  return {
    ...strategyWire(detail.row),
    transitions: detail.transitions.map(transitionWire),
    promotion: detail.promotion,
  };
}
