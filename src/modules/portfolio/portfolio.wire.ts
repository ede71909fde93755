// The portfolio's answers on the wire: the service returns exact decimals and Dates, and the routes
// answer them through these mappers, each typed by its response schema: numbers, with the price
// and the returns to 8 decimals.
import type { Static } from 'typebox';
import { iso } from '../../platform/http/schemas.ts';
import type { PortfolioHistory } from './history.service.ts';
import type { Dec } from './ledger.domain.ts';
import type { History, Summary } from './portfolio.schemas.ts';
import type { PortfolioSummary } from './portfolio.service.ts';

const num = (value: Dec) => Number(value.toString());

export function summaryWire({ quote, asOf, summary }: PortfolioSummary): Static<typeof Summary> {
  return {
    quote,
    as_of: iso(asOf)!,
    value: num(summary.value),
    cost_basis: num(summary.cost_basis),
    unrealized_pnl: num(summary.unrealized_pnl),
    realized_pnl: num(summary.realized_pnl),
    fees: num(summary.fees),
    net_deposits: num(summary.net_deposits),
    assets: summary.assets.map((a) => ({
      asset: a.asset,
      amount: num(a.amount),
      price: a.price === null ? null : num(a.price.toDecimalPlaces(8)),
      value: num(a.value),
      cost_basis: num(a.cost_basis),
      unrealized_pnl: num(a.unrealized_pnl),
      realized_pnl: num(a.realized_pnl),
    })),
  };
}

export function historyWire(history: PortfolioHistory): Static<typeof History> {
  return {
    quote: history.quote,
    interval: history.interval,
    points: history.points.map((p) => ({ ts: iso(p.at)!, value: num(p.value), net_deposits: num(p.netDeposits) })),
    twr: history.twr === null ? null : num(history.twr.toDecimalPlaces(8)),
    mwr: history.mwr === null ? null : Number(history.mwr.toFixed(8)),
  };
}
