// When a strategy in paper trading has earned real money: the autopilot's promotion rules, pure.

/** The paper-trading figures, by the names the API shows them by (StrategyMetricsSchema has one field each). */
export const STRATEGY_METRIC_NAMES = ['paper_trades', 'win_rate', 'return_pct', 'max_drawdown_pct'] as const;

/**
 * Paper-trading figures, written by whatever runs the paper trading; read by the autopilot. Stored
 * as written (a JSON column), under the names the API shows them by, each absent until reported.
 */
export type StrategyMetrics = { [K in (typeof STRATEGY_METRIC_NAMES)[number]]?: number };

export const STRATEGY_STATUSES = ['draft', 'paper', 'live', 'retired'] as const;
export type StrategyStatus = (typeof STRATEGY_STATUSES)[number];

/** docs/decisions/072: every rule must hold for a paper strategy to go live. */
export const PROMOTION_RULES = Object.freeze({
  minPaperDays: 14,
  minPaperTrades: 30,
  /** The paper return must be strictly above this, in percent. */
  minReturnPct: 0,
  maxDrawdownPct: 10,
  /** Share of winning trades, 0..1. */
  minWinRate: 0.5,
});

const DAY_MS = 86_400_000;

export interface PromotionVerdict {
  eligible: boolean;
  /** Why not, one sentence per rule that failed; empty when eligible. */
  reasons: string[];
}

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

export function promotionVerdict(
  strategy: { paperStartedAt: Date | null; metrics: StrategyMetrics },
  now: Date,
): PromotionVerdict {
  const rules = PROMOTION_RULES;
  const reasons: string[] = [];
  const {
    paper_trades: trades,
    win_rate: winRate,
    return_pct: returnPct,
    max_drawdown_pct: drawdown,
  } = strategy.metrics;
  if (!strategy.paperStartedAt) reasons.push('paper trading start is unknown');
  else {
    const days = Math.floor((now.getTime() - strategy.paperStartedAt.getTime()) / DAY_MS);
    if (days < rules.minPaperDays) reasons.push(`in paper trading for ${days} of ${rules.minPaperDays} days`);
  }
  if (!finite(trades)) reasons.push('paper_trades is missing');
  else if (trades < rules.minPaperTrades) reasons.push(`${trades} of ${rules.minPaperTrades} paper trades`);
  if (!finite(returnPct)) reasons.push('return_pct is missing');
  else if (!(returnPct > rules.minReturnPct))
    reasons.push(`return ${returnPct} % is not above ${rules.minReturnPct} %`);
  if (!finite(drawdown)) reasons.push('max_drawdown_pct is missing');
  else if (Math.abs(drawdown) > rules.maxDrawdownPct)
    reasons.push(`max drawdown ${Math.abs(drawdown)} % is above ${rules.maxDrawdownPct} %`);
  if (!finite(winRate)) reasons.push('win_rate is missing');
  else if (winRate < rules.minWinRate) reasons.push(`win rate ${winRate} is below ${rules.minWinRate}`);
  return { eligible: reasons.length === 0, reasons };
}

/** Transitions still allowed this hour: the limit minus those already made in the last hour, never negative. */
export function transitionBudget(limitPerHour: number, madeInLastHour: number): number {
  return Math.max(0, limitPerHour - madeInLastHour);
}
