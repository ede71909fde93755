// The trading controls on the wire: limits, caps, halts and the status. Decimals are strings; null is
// no limit. Decimal text is checked by the service (limits.domain.ts), which reports it as Pydantic does.
import { Type, type Static } from 'typebox';
import { MAX_COUNT_LIMIT } from '../../config/trading-limits.ts';
import { DateTime, Nullable, StringEnum } from '../../platform/http/schemas.ts';
import { MAX_PERCENT } from './limits.domain.ts';

const DecimalText = (description: string) =>
  Type.String({ maxLength: 64, description: `${description} A decimal string above 0, e.g. "2500.50".` });
const Count = (description: string) =>
  Type.Integer({ minimum: 1, maximum: MAX_COUNT_LIMIT, description: `${description} 1 to ${MAX_COUNT_LIMIT}.` });

const DESCRIPTIONS = {
  max_order_notional: 'Largest order, as amount × price (the last price for a market order), in quote units.',
  max_open_orders: 'Orders open at once; an order beyond them is refused.',
  max_orders_per_minute: 'Orders placed in any 60 s.',
  price_band_percent: `How far a limit price may be from the last price, in percent of it (at most ${MAX_PERCENT}).`,
  daily_loss_limit: 'Realized loss of the UTC day, in quote units, past which trading halts until the next UTC day.',
};

const limitFields = () => ({
  max_order_notional: Nullable(DecimalText(DESCRIPTIONS.max_order_notional)),
  max_open_orders: Nullable(Count(DESCRIPTIONS.max_open_orders)),
  max_orders_per_minute: Nullable(Count(DESCRIPTIONS.max_orders_per_minute)),
  price_band_percent: Nullable(DecimalText(DESCRIPTIONS.price_band_percent)),
  daily_loss_limit: Nullable(DecimalText(DESCRIPTIONS.daily_loss_limit)),
});

/** Five limits, each a value or null (no limit). */
const LimitSet = (description: string) => Type.Object(limitFields(), { description });
export type LimitValues = Static<ReturnType<typeof LimitSet>>;

export const LimitsBody = Type.Object(
  {
    max_order_notional: Type.Optional(Nullable(DecimalText(DESCRIPTIONS.max_order_notional))),
    max_open_orders: Type.Optional(Nullable(Count(DESCRIPTIONS.max_open_orders))),
    max_orders_per_minute: Type.Optional(Nullable(Count(DESCRIPTIONS.max_orders_per_minute))),
    price_band_percent: Type.Optional(Nullable(DecimalText(DESCRIPTIONS.price_band_percent))),
    daily_loss_limit: Type.Optional(Nullable(DecimalText(DESCRIPTIONS.daily_loss_limit))),
  },
  { description: 'The fields given are set, the others kept; null removes a limit (a cap still holds).' },
);
export type LimitsBody = Static<typeof LimitsBody>;

export const LimitsRecord = Type.Object({
  ...limitFields(),
  own: LimitSet("Your own limits (the platform's defaults until you change them)."),
  caps: LimitSet("The platform's caps: no limit in force is above them; null is no cap."),
});
export type LimitsRecord = Static<typeof LimitsRecord>;

export const CapsRecord = Type.Object({
  ...limitFields(),
  defaults: LimitSet("Every user's limits until the user changes them (TRADING_* settings)."),
});
export type CapsRecord = Static<typeof CapsRecord>;

export const HaltBody = Type.Object({
  reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why trading is halted, 1 to 500 characters.' }),
});
export type HaltBody = Static<typeof HaltBody>;

const statusFields = {
  halted: Type.Boolean({ description: 'Whether new orders are refused.' }),
  halted_by: Nullable(
    StringEnum(['user', 'platform'] as const, {
      description: '`platform` (an admin halted everyone) comes first; `user` (you, or your daily loss limit).',
    }),
  ),
  reason: Nullable(Type.String({ description: 'Why, as given when halting or as the daily loss limit states it.' })),
  halted_at: Nullable(DateTime('When the halt began.')),
  until: Nullable(DateTime('When the halt ends by itself (a daily-loss halt, at the next 00:00 UTC); else null.')),
};

export const StatusRecord = Type.Object(statusFields, { title: 'TradingStatus' });
export type StatusRecord = Static<typeof StatusRecord>;

export const HaltRecord = Type.Object({
  ...statusFields,
  canceled_orders: Type.Integer({ description: 'Open orders canceled by the halt (paper and live).' }),
  all_canceled: Type.Boolean({
    description: 'False when some open order could not be canceled now (the venue did not answer); it is retried.',
  }),
});
export type HaltRecord = Static<typeof HaltRecord>;
