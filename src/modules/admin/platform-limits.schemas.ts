// The per-hour platform limits: their defaults and bounds live here, and the PATCH schema carries
// the bounds so that validation reports a value outside them as Pydantic would.
import { Type, type Static } from 'typebox';

export const LIMIT_NAMES = ['backtest_per_hour', 'optimize_per_hour', 'paper_transition_per_hour'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

export const LIMIT_DEFAULTS: Readonly<Record<LimitName, number>> = Object.freeze({
  backtest_per_hour: 10,
  optimize_per_hour: 5,
  paper_transition_per_hour: 4,
});

export const LIMIT_BOUNDS: Readonly<Record<LimitName, readonly [number, number]>> = Object.freeze({
  backtest_per_hour: [1, 100],
  optimize_per_hour: [1, 50],
  paper_transition_per_hour: [1, 20],
});

const WHAT: Record<LimitName, string> = {
  backtest_per_hour: 'Backtests a user may start per hour',
  optimize_per_hour: 'Strategy optimisations a user may start per hour',
  paper_transition_per_hour: 'Strategy moves into or out of paper trading a user may make per hour',
};

const describe = (name: LimitName) =>
  `${WHAT[name]}; ${LIMIT_BOUNDS[name][0]}..${LIMIT_BOUNDS[name][1]}, default ${LIMIT_DEFAULTS[name]}.`;

const limitField = (name: LimitName) =>
  Type.Integer({ minimum: LIMIT_BOUNDS[name][0], maximum: LIMIT_BOUNDS[name][1], description: describe(name) });

export const PlatformLimitsPatch = Type.Object(
  {
    backtest_per_hour: Type.Optional(limitField('backtest_per_hour')),
    optimize_per_hour: Type.Optional(limitField('optimize_per_hour')),
    paper_transition_per_hour: Type.Optional(limitField('paper_transition_per_hour')),
  },
  { description: 'Limits to change; absent ones stay as they are.' },
);
export type PlatformLimitsPatch = Static<typeof PlatformLimitsPatch>;

export const PlatformLimits = Type.Object(
  {
    backtest_per_hour: Type.Integer({ description: describe('backtest_per_hour') }),
    optimize_per_hour: Type.Integer({ description: describe('optimize_per_hour') }),
    paper_transition_per_hour: Type.Integer({ description: describe('paper_transition_per_hour') }),
    bounds: Type.Record(Type.String(), Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 }), {
      description: 'For each limit, its inclusive bounds `[min, max]`.',
    }),
  },
  { description: 'Per-hour platform limits and their bounds.' },
);
export type PlatformLimits = Static<typeof PlatformLimits>;
