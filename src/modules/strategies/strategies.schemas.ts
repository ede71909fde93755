// Admin read of strategies (extra routes beyond the spec, docs/decisions/072).
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, PageNumber, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { PROMOTION_RULES, type STRATEGY_METRIC_NAMES, STRATEGY_STATUSES } from './strategies.domain.ts';

const Num = (description: string) => Nullable(Type.Number({ description }));

export const StrategyMetricsSchema = Type.Object(
  {
    paper_trades: Num('Paper trades since paper trading started; null when not reported yet.'),
    win_rate: Num('Share of winning paper trades, 0..1; null when not reported yet.'),
    return_pct: Num('Return of the paper account since paper trading started, in percent; null when not reported yet.'),
    max_drawdown_pct: Num('Largest peak-to-trough fall of the paper account, in percent; null when not reported yet.'),
  } satisfies Record<(typeof STRATEGY_METRIC_NAMES)[number], unknown>,
  { description: 'Paper-trading figures the autopilot judges a strategy by.' },
);

export const Strategy = Type.Object(
  {
    id: Uuid('Strategy id.'),
    name: Type.String({ description: 'Display name.' }),
    owner_user_id: Nullable(Uuid('The user who owns it; null for a platform strategy.')),
    status: Type.String({ description: '`draft`, `paper` (paper trading), `live` or `retired`.' }),
    paper_started_at: Nullable(DateTime('When paper trading started; null if it never did.')),
    live_started_at: Nullable(DateTime('When it went live; null if it never did.')),
    metrics: StrategyMetricsSchema,
    created_at: DateTime('When the record was created.'),
    updated_at: DateTime('Last change.'),
  },
  { description: 'A trading strategy.' },
);
export type Strategy = Static<typeof Strategy>;

export const StrategyTransition = Type.Object({
  from: Type.String({ description: 'Status before.' }),
  to: Type.String({ description: 'Status after.' }),
  at: DateTime('When it moved.'),
  reason: Type.String({ description: 'Why, e.g. the autopilot rules that were met.' }),
});
export type StrategyTransition = Static<typeof StrategyTransition>;

export const StrategyDetail = Type.Object(
  {
    ...Strategy.properties,
    transitions: Type.Array(StrategyTransition, { description: 'The 50 most recent status changes, newest first.' }),
    promotion: Nullable(
      Type.Object(
        {
          eligible: Type.Boolean({ description: 'Whether every promotion rule holds now.' }),
          reasons: Type.Array(Type.String(), { description: 'The rules that do not hold, one sentence each.' }),
        },
        {
          description:
            "For a strategy in paper trading: the autopilot's verdict now " +
            `(rules: ${JSON.stringify(PROMOTION_RULES)}); null otherwise.`,
        },
      ),
    ),
  },
  { description: 'A trading strategy with its recent transitions.' },
);
export type StrategyDetail = Static<typeof StrategyDetail>;

export const StrategyListQuery = Type.Object({
  page: PageNumber(),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Strategies per page, 1..100.' }),
  status: Type.Optional(StringEnum(STRATEGY_STATUSES, { description: 'Only strategies in this status.' })),
});
export type StrategyListQuery = Static<typeof StrategyListQuery>;

export const StrategyList = Type.Object({
  strategies: Type.Array(Strategy, { description: 'This page, newest first.' }),
  total: Type.Integer({ description: 'Strategies matching the filter.' }),
  page: Type.Integer({ description: 'The page answered.' }),
  limit: Type.Integer({ description: 'Page size.' }),
});
export type StrategyList = Static<typeof StrategyList>;

export const StrategyIdParams = Type.Object({ strategy_id: Uuid('Strategy id (a UUID).') });
export type StrategyIdParams = Static<typeof StrategyIdParams>;

export const CreateStrategyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Display name, 1 to 100 characters.' }),
  },
  { additionalProperties: false },
);
export type CreateStrategyBody = Static<typeof CreateStrategyBody>;

export const MyStrategyListQuery = Type.Object({
  page: PageNumber(),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Strategies per page, 1..100.' }),
});
export type MyStrategyListQuery = Static<typeof MyStrategyListQuery>;
