// The trading controls' answers on the wire, each mapper typed by its response schema, and the body
// of a change of limits as the service takes it.
import { iso } from '../../platform/http/schemas.ts';
import type { TradingStatus } from './halts.domain.ts';
import type { HaltResult } from './halts.service.ts';
import type { Limits, LimitsPatch } from './limits.domain.ts';
import type { CapsView, LimitsView } from './limits.service.ts';
import type { CapsRecord, HaltRecord, LimitValues, LimitsBody, LimitsRecord, StatusRecord } from './trading.schemas.ts';

export function limitValuesWire(limits: Limits): LimitValues {
  return {
    max_order_notional: limits.maxOrderNotional,
    max_open_orders: limits.maxOpenOrders,
    max_orders_per_minute: limits.maxOrdersPerMinute,
    price_band_percent: limits.priceBandPercent,
    daily_loss_limit: limits.dailyLossLimit,
  };
}

export function limitsPatchOf(body: LimitsBody): LimitsPatch {
  return {
    maxOrderNotional: body.max_order_notional,
    maxOpenOrders: body.max_open_orders,
    maxOrdersPerMinute: body.max_orders_per_minute,
    priceBandPercent: body.price_band_percent,
    dailyLossLimit: body.daily_loss_limit,
  };
}

export function limitsWire(view: LimitsView): LimitsRecord {
  return { ...limitValuesWire(view.effective), own: limitValuesWire(view.own), caps: limitValuesWire(view.caps) };
}

export function capsWire(view: CapsView): CapsRecord {
  return { ...limitValuesWire(view.caps), defaults: limitValuesWire(view.defaults) };
}

export function statusWire(status: TradingStatus): StatusRecord {
  return {
    halted: status.halted,
    halted_by: status.haltedBy,
    reason: status.reason,
    halted_at: iso(status.haltedAt),
    until: iso(status.until),
  };
}

export function haltWire(result: HaltResult): HaltRecord {
  return { ...statusWire(result.status), canceled_orders: result.canceled, all_canceled: result.allCanceled };
}
