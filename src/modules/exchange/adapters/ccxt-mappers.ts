// ccxt's unified structures mapped to the gateway's types. Balances and trades keep the venue's
// decimal strings (the instance parses numbers as strings for them); floats only for display data.
import type { Balances, MarketInterface, Ticker, Trade, Transaction } from 'ccxt';
import { Decimal } from 'decimal.js';
import type {
  FeeTokenBurn,
  VenueBalance,
  VenueMarket,
  VenueTicker,
  VenueTrade,
  VenueTransfer,
} from './venue-gateway.ts';

export function numberOrNull(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

function stringOrNull(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  return String(value);
}

export function toVenueMarket(m: MarketInterface): VenueMarket {
  return {
    symbol: m.symbol ?? '',
    id: m.id ?? m.symbol ?? '',
    base: m.base ?? '',
    quote: m.quote ?? '',
    active: m.active !== false,
    minAmount: numberOrNull(m.limits?.amount?.min),
    maxAmount: numberOrNull(m.limits?.amount?.max),
    minCost: numberOrNull(m.limits?.cost?.min),
    pricePrecision: numberOrNull(m.precision?.price),
    amountPrecision: numberOrNull(m.precision?.amount),
    maker: numberOrNull(m.maker),
    taker: numberOrNull(m.taker),
  };
}

export function toVenueTicker(t: Ticker): VenueTicker {
  return {
    symbol: t.symbol ?? '',
    last: numberOrNull(t.last),
    bid: numberOrNull(t.bid),
    ask: numberOrNull(t.ask),
    high: numberOrNull(t.high),
    low: numberOrNull(t.low),
    open: numberOrNull(t.open),
    close: numberOrNull(t.close),
    change: numberOrNull(t.change),
    percentage: numberOrNull(t.percentage),
    baseVolume: numberOrNull(t.baseVolume),
    quoteVolume: numberOrNull(t.quoteVolume),
    vwap: numberOrNull(t.vwap),
    timestamp: numberOrNull(t.timestamp),
  };
}

/** Non-zero holdings only; a venue lists hundreds of empty currencies. */
export function toBalances(balances: Balances): VenueBalance[] {
  const totals = (balances.total ?? {}) as unknown as Record<string, unknown>;
  const free = (balances.free ?? {}) as unknown as Record<string, unknown>;
  const used = (balances.used ?? {}) as unknown as Record<string, unknown>;
  const rows: VenueBalance[] = [];
  for (const currency of Object.keys(totals).sort()) {
    const f = decimal(free[currency]);
    const l = decimal(used[currency]);
    const t = totals[currency] === undefined || totals[currency] === null ? f.plus(l) : decimal(totals[currency]);
    if (t.isZero() && f.isZero() && l.isZero()) continue;
    rows.push({ currency, free: f.toFixed(), locked: l.toFixed(), total: t.toFixed() });
  }
  return rows;
}

function decimal(value: unknown): Decimal {
  try {
    return value === undefined || value === null || value === '' ? new Decimal(0) : new Decimal(String(value));
  } catch {
    return new Decimal(0);
  }
}

export function toVenueTrade(t: Trade): VenueTrade {
  return {
    id: stringOrNull(t.id),
    symbol: t.symbol ?? '',
    side: t.side === 'buy' || t.side === 'sell' ? t.side : null,
    price: stringOrNull(t.price),
    amount: stringOrNull(t.amount),
    cost: stringOrNull(t.cost),
    fee: stringOrNull(t.fee?.cost),
    feeCurrency: stringOrNull(t.fee?.currency),
    timestamp: numberOrNull(t.timestamp),
  };
}

export function toVenueTransfer(t: Transaction): VenueTransfer {
  return {
    id: stringOrNull(t.id),
    currency: stringOrNull(t.currency),
    amount: stringOrNull(t.amount),
    fee: stringOrNull(t.fee?.cost),
    txid: stringOrNull(t.txid),
    status: stringOrNull(t.status),
    timestamp: numberOrNull(t.timestamp),
  };
}

export function toBurn(answer: Record<string, unknown>): FeeTokenBurn {
  return {
    spot: answer.spotBNBBurn === true || answer.spotBNBBurn === 'true',
    interest:
      answer.interestBNBBurn === undefined
        ? null
        : answer.interestBNBBurn === true || answer.interestBNBBurn === 'true',
  };
}
