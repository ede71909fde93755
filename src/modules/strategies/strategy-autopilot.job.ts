// strategy-autopilot/evaluate: (1) scores matured market-intel calls from the venue's candles,
// (2) promotes paper-trading strategies that meet the rules, within the hourly transition limit.
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import { Type, type Static } from 'typebox';
import { defineJob } from '../../platform/jobs.ts';
import type { PaperEvaluation } from './strategies.service.ts';
import { AppError } from '../../platform/http/errors.ts';
import {
  candleRequests,
  closeAt,
  outcomePct,
  SCORING_INTERVAL,
  type ClosedCandle,
  type PricePoint,
} from './intel-outcome.domain.ts';

/** Matured events looked at per run (never-tried first, then oldest horizon first); the rest wait for the next run. */
const INTEL_BATCH = 200;
/** Candle requests out at once: they overlap instead of queuing one behind another. */
const SCORING_CONCURRENCY = 8;

export interface MaturedIntel {
  id: string;
  symbol: string;
  detectedAt: Date;
  horizonAt: Date;
}

export interface StrategyAutopilotDeps {
  intel: {
    listMaturedUnscored(now: Date, limit: number): Promise<MaturedIntel[]>;
    recordOutcomes(outcomes: { id: string; outcomePct: number }[]): Promise<number>;
    recordScoringFailures(failures: { id: string; unscorable: boolean; reason: string }[]): Promise<void>;
  };
  candles(symbol: string, interval: string, start: Date, end: Date, limit?: number): Promise<ClosedCandle[]>;
  strategies: {
    evaluatePaper(now: Date, limitPerHour: number, options?: { promote?: boolean }): Promise<PaperEvaluation>;
  };
  platformLimits(): Promise<{ paper_transition_per_hour: number }>;
  /** LIVE_TRADING: off, no strategy is promoted to live (decision 1110). */
  liveTrading: boolean;
  logger: Pick<Logger, 'warn'>;
  /** Events scored per run; INTEL_BATCH unless a test wants a small one. */
  intelBatch?: number;
}

const int = (description: string) => Type.Integer({ description });

const IntelResult = Type.Object(
  {
    matured: int(`Matured, unscored events looked at (at most ${INTEL_BATCH} per run).`),
    scored: int('Events given an outcome_pct in this run.'),
    market_failures: int('Events left unscored because the market data source failed; tried again on the next run.'),
    unscorable: int('Events left unscored because the venue does not list the symbol or has no candle for the time.'),
  },
  { description: 'Scoring of matured market-intel events.' },
);

const PaperResult = Type.Object(
  {
    evaluated: int('Strategies in paper trading judged.'),
    eligible: int('Of those, the ones meeting every promotion rule.'),
    promoted: int('Moved from `paper` to `live` in this run.'),
    deferred: int(
      "Eligible but over their owner's hourly transition limit, or every eligible one while LIVE_TRADING is off; " +
        'judged again on a later run.',
    ),
    held: int('Not meeting the rules yet.'),
    limit_per_hour: int(
      'The platform limit `paper_transition_per_hour` in force: moves into or out of paper per owner and hour.',
    ),
    transitions_last_hour: int('Strategy transitions already made in the hour before this run.'),
    promoted_ids: Type.Array(Type.String(), { description: 'Ids of the promoted strategies.' }),
  },
  { description: 'Promotion of strategies in paper trading.' },
);

export const StrategyAutopilotResult = Type.Object({
  intel: IntelResult,
  strategies: Type.Object({
    ...PaperResult.properties,
    note: Type.Optional(
      Type.String({ description: 'Present when there was nothing to judge, or when LIVE_TRADING is off.' }),
    ),
  }),
});
export type StrategyAutopilotResult = Static<typeof StrategyAutopilotResult>;

function paperResult(evaluation: PaperEvaluation): Static<typeof PaperResult> {
  return {
    evaluated: evaluation.evaluated,
    eligible: evaluation.eligible,
    promoted: evaluation.promoted,
    deferred: evaluation.deferred,
    held: evaluation.held,
    limit_per_hour: evaluation.limitPerHour,
    transitions_last_hour: evaluation.transitionsLastHour,
    promoted_ids: evaluation.promotedIds,
  };
}

/** A point's price: the close at its instant, null when the venue has no candle for it, or why it could not be asked. */
type Priced = number | null | { error: unknown };

const couldNotAsk = (price: Priced): price is { error: unknown } => typeof price === 'object' && price !== null;

async function scoreIntel(deps: StrategyAutopilotDeps, now: Date): Promise<Static<typeof IntelResult>> {
  const events = await deps.intel.listMaturedUnscored(now, deps.intelBatch ?? INTEL_BATCH);
  // Each event's price at detection (point 2i) and at its horizon (2i + 1), from as few candle requests
  // as cover them; every request settles before any event is judged, so none is still out when the run ends.
  const points: PricePoint[] = events.flatMap((e) => [
    { symbol: e.symbol, at: e.detectedAt },
    { symbol: e.symbol, at: e.horizonAt },
  ]);
  const prices: Priced[] = new Array(points.length).fill(null);
  const limit = pLimit(SCORING_CONCURRENCY);
  await Promise.all(
    candleRequests(points).map((request) =>
      limit(async () => {
        try {
          const candles = await deps.candles(
            request.symbol,
            SCORING_INTERVAL,
            request.start,
            request.end,
            request.limit,
          );
          for (const i of request.points) prices[i] = closeAt(candles, points[i]!.at);
        } catch (error) {
          deps.logger.warn({ err: error, symbol: request.symbol, points: request.points.length }, 'candles not read');
          for (const i of request.points) prices[i] = { error };
        }
      }),
    ),
  );

  const counts = { matured: events.length, scored: 0, market_failures: 0, unscorable: 0 };
  const outcomes: { id: string; outcomePct: number }[] = [];
  const failures: { id: string; unscorable: boolean; reason: string }[] = [];
  events.forEach((event, i) => {
    const pair = [prices[2 * i]!, prices[2 * i + 1]!] as const;
    const failed = pair.find(couldNotAsk);
    if (failed) {
      // An unknown symbol (404) or a refused window (422) will not get better; an upstream failure may.
      // Recorded, so the next run tries events never tried first: a pile of unscorable ones never blocks newer events.
      const { error } = failed;
      const permanent = error instanceof AppError && error.status < 500;
      failures.push({
        id: event.id,
        unscorable: permanent,
        reason: permanent
          ? `the venue cannot price ${event.symbol}: ${error.message}`
          : 'the market data source failed',
      });
      counts[permanent ? 'unscorable' : 'market_failures'] += 1;
      return;
    }
    const [atDetection, atHorizon] = pair;
    // Both were asked: a price that is not a number is a missing candle.
    if (typeof atDetection !== 'number' || typeof atHorizon !== 'number') {
      failures.push({
        id: event.id,
        unscorable: true,
        reason: `no ${SCORING_INTERVAL} candle of ${event.symbol} at ${atDetection === null ? 'detection' : 'the horizon'}`,
      });
      counts.unscorable += 1;
      return;
    }
    outcomes.push({ id: event.id, outcomePct: outcomePct(atDetection, atHorizon) });
    counts.scored += 1;
  });
  // Recorded set by set, each in one statement: the cost follows the run, not its events.
  await deps.intel.recordOutcomes(outcomes);
  await deps.intel.recordScoringFailures(failures);
  return counts;
}

export async function strategyAutopilot(deps: StrategyAutopilotDeps, now: Date): Promise<StrategyAutopilotResult> {
  const intel = await scoreIntel(deps, now);
  const { paper_transition_per_hour: limit } = await deps.platformLimits();
  const paper = paperResult(await deps.strategies.evaluatePaper(now, limit, { promote: deps.liveTrading }));
  const note =
    paper.evaluated === 0
      ? 'no strategies in paper trading; evaluated none'
      : deps.liveTrading
        ? undefined
        : 'LIVE_TRADING is off on this server: strategies meeting the rules stay in paper trading';
  return { intel, strategies: note ? { ...paper, note } : paper };
}

/**
 * Its units are the matured intel events: scored ones succeeded, those the market data source failed
 * on failed; unscorable ones (the venue cannot price them) neither (docs/decisions/126).
 */
function strategyAutopilotUnits(result: StrategyAutopilotResult) {
  return { total: result.intel.matured, succeeded: result.intel.scored, failed: result.intel.market_failures };
}

export const strategyAutopilotJob = defineJob({
  name: 'strategy-autopilot/evaluate',
  unitName: 'intel event',
  cron: '*/15 * * * *',
  summary: 'Score matured intel calls and promote paper strategies',
  description:
    `(1) For up to ${INTEL_BATCH} market-intel events whose horizon has passed and that have no outcome yet ` +
    "(never-tried first, then oldest first), `outcome_pct` = the market's move in percent from the last " +
    '1-minute close known at `detected_at` to the last one known at the horizon (`expires_at`, or ' +
    "detection + 24 h), with the market's sign: the intel summary counts a call correct when that sign matches " +
    'its direction. An event whose candles cannot be fetched stays unscored, is counted, and gets its ' +
    '`scoring_error`; later runs try it after the events never tried, and after 3 runs in which the venue ' +
    'could not price it (symbol not listed, no candle) it is given up. (2) Strategies in `paper` that meet ' +
    'every promotion rule (≥ 14 days in paper, ≥ 30 paper trades, return > 0 %, max drawdown ≤ 10 %, win rate ' +
    '≥ 0.5) move to `live`, longest in paper first, while their owner made fewer moves into or out of paper ' +
    '(strategies created, transitions) than the platform limit `paper_transition_per_hour` in the last hour ' +
    '(platform strategies count as one owner); the rest are deferred and counted. While the server does not ' +
    'trade live (`LIVE_TRADING` off, the default) none moves: every eligible one is deferred, and a note says ' +
    'why. With no ' +
    'strategy in paper, it says it evaluated none. The run is `failed` when the market data source ' +
    'failed for every event it tried to score and none was scored, `partial` when it failed for some.',
  result: StrategyAutopilotResult,
  run: strategyAutopilot,
  units: strategyAutopilotUnits,
});
