// The account-stream event the trading module publishes when a user's trading is halted (by the user or
// by the day's loss), declared here once; its module's declaration lists it.
import { Type } from 'typebox';
import { defineStreamEvent } from '../../platform/stream-events.ts';
import { Nullable } from '../../platform/http/schemas.ts';

const tradingHalted = defineStreamEvent({
  type: 'trading.halted',
  audience: 'user',
  title: 'TradingHaltedData',
  description:
    "The user's trading was halted: by the user (`POST /api/trading/halt`) or because the realized loss of the UTC " +
    'day passed daily_loss_limit. Open orders are being canceled; new ones are refused until resumed.',
  data: Type.Object({
    cause: Type.String({
      description: '`user` (the user halted) or `daily_loss` (the loss of the day passed the limit).',
    }),
    reason: Type.String({ description: 'Why, as given or as the daily loss limit states it.' }),
    until: Nullable(
      Type.String({
        format: 'date-time',
        description: 'When a daily-loss halt ends by itself (the next 00:00 UTC); null: until resumed.',
      }),
    ),
  }),
});

export const TRADING_EVENTS = [tradingHalted] as const;
