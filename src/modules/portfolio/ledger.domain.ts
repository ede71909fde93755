// The FIFO ledger, pure: lots per asset from trades, deposits, withdrawals and transfers between
// the user's own venues; realized results; the state kept between requests; the rounding at the edge.
// Every amount is a Decimal; nothing here reads a clock, a database or a venue (docs/decisions/150-153, 156).
import { Decimal } from 'decimal.js';

/** Enough digits that the pro-rata splits of one fill never lose a unit of the 18th decimal. */
export const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_EVEN });
export type Dec = InstanceType<typeof D>;

export const dec = (value: string | number | Dec) => new D(value);

/** What a stored ledger state was built from. */
export interface LedgerMarks {
  trades: number;
  transfers: number;
  /** The newest `createdAt` of the trades applied. */
  watermark: Date | null;
  /** How many applied trades were stored within COMMIT_MARGIN_MS (ledger.service.ts) before the watermark, inclusive. */
  marginCount: number;
  /** The time of the latest event applied. */
  lastEventAt: Date | null;
}

const ZERO = new D(0);

/**
 * Quotes whose values are money counted in cents: fiat currencies and the stablecoins pegged to them
 * (docs/decisions/893). Values in any other quote (BTC, ETH, ...) keep 8 decimals.
 */
const CENT_QUOTES: ReadonlySet<string> = new Set([
  ...['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'NZD', 'TRY', 'BRL', 'MXN', 'ARS', 'ZAR', 'PLN'],
  ...['CZK', 'SEK', 'NOK', 'DKK', 'HUF', 'RON', 'UAH', 'RUB', 'INR', 'IDR', 'KRW', 'SGD', 'HKD', 'AED'],
  ...['USDT', 'USDC', 'DAI', 'FDUSD', 'TUSD', 'BUSD', 'USDP', 'PYUSD', 'USDE', 'USDD', 'GUSD', 'EURC', 'EURT'],
]);

/** How many decimals a value in `quote` is rounded to: 2 for a fiat or stablecoin quote, 8 for any other. */
export const moneyDecimals = (quote: string) => (CENT_QUOTES.has(quote.toUpperCase()) ? 2 : 8);

/** Rounding at the edge (docs/decisions/153, 893): amounts to 8 decimals, quote values to `moneyDecimals`, half to even. */
export const roundAmount = (value: Dec) => value.toDecimalPlaces(8, Decimal.ROUND_HALF_EVEN);
export const roundMoney = (value: Dec, quote: string) =>
  value.toDecimalPlaces(moneyDecimals(quote), Decimal.ROUND_HALF_EVEN);

/**
 * An open lot: `amount` of `asset` bought, deposited or moved to `exchange` at `openedAt` for `cost` (report quote).
 */
export interface Lot {
  asset: string;
  exchange: string;
  openedAt: Date;
  amount: Dec;
  cost: Dec;
}

/** One closed part of a lot: the CSV's row. `openedAt` null when the amount disposed was beyond every known lot. */
export interface ClosedPart {
  asset: string;
  /** Where the disposal happened. */
  exchange: string;
  openedAt: Date | null;
  closedAt: Date;
  amount: Dec;
  cost: Dec;
  /** Gross: before the fee. */
  proceeds: Dec;
  fee: Dec;
  /** proceeds − fee − cost. */
  gain: Dec;
}

/**
 * A fill. `rate` values one unit of the pair's quote currency in the report's quote at the fill's
 * time (1 when they are the same); `feeRate` one unit of the fee currency when it is neither the
 * base nor the pair's quote (BNB). `price` is the fill's price in the pair's quote.
 */
export interface TradeEvent {
  kind: 'trade';
  at: Date;
  exchange: string;
  base: string;
  quote: string;
  side: 'buy' | 'sell';
  amount: Dec;
  price: Dec;
  total: Dec;
  fee: Dec;
  feeCurrency: string | null;
  rate: Dec;
  feeRate?: Dec;
}

/** A deposit from outside the user's venues; `price` values one unit in the report quote at `at`. */
export interface DepositEvent {
  kind: 'deposit';
  at: Date;
  exchange: string;
  asset: string;
  amount: Dec;
  price: Dec;
}

/** A withdrawal to outside: `amount` is sent, and `fee` of the same asset charged on top of it. */
export interface WithdrawalEvent {
  kind: 'withdrawal';
  at: Date;
  exchange: string;
  asset: string;
  amount: Dec;
  fee: Dec;
  price: Dec;
}

/** A move between two of the user's venues (a matched withdrawal and deposit): not a sale, not a flow. */
export interface TransferEvent {
  kind: 'transfer';
  at: Date;
  from: string;
  to: string;
  asset: string;
  /** What arrived. */
  amount: Dec;
  /** What the sending venue charged on top, in the asset. */
  fee: Dec;
  price: Dec;
}

export type LedgerEvent = TradeEvent | DepositEvent | WithdrawalEvent | TransferEvent;

export interface Ledger {
  quote: string;
  /** Open lots per asset, oldest first. */
  lots: Map<string, Lot[]>;
  closed: ClosedPart[];
  /** Realized result per asset (Σ gain of its closed parts). */
  realized: Map<string, Dec>;
  /** Σ fee values, report quote. */
  fees: Dec;
  /** Σ deposits − Σ withdrawals, each valued when it happened. */
  netDeposits: Dec;
  /**
   * Assets whose lot arrays are still another ledger's (`forkLedger`, ledger-state.domain.ts): copied on
   * their first change here, so the ledger forked from is never changed.
   */
  shared?: Set<string>;
}

export function emptyLedger(quote: string): Ledger {
  return { quote, lots: new Map(), closed: [], realized: new Map(), fees: ZERO, netDeposits: ZERO };
}

/** The asset's lots, to change: a lot array shared with the ledger this one was forked from is copied first. */
function lotsOf(ledger: Ledger, asset: string): Lot[] {
  let lots = ledger.lots.get(asset);
  if (!lots) ledger.lots.set(asset, (lots = []));
  else if (ledger.shared?.delete(asset)) ledger.lots.set(asset, (lots = lots.slice()));
  return lots;
}

function open(ledger: Ledger, lot: Lot): void {
  if (lot.asset === ledger.quote || lot.amount.lte(0)) return;
  lotsOf(ledger, lot.asset).push(lot);
}

/** Takes `amount` off the oldest lots of `asset`, oldest first; answers the parts taken (and what no lot covered). */
function take(
  ledger: Ledger,
  asset: string,
  amount: Dec,
): { parts: { lot: Lot; amount: Dec; cost: Dec }[]; uncovered: Dec } {
  const lots = lotsOf(ledger, asset);
  const parts: { lot: Lot; amount: Dec; cost: Dec }[] = [];
  let left = amount;
  while (left.gt(0) && lots.length > 0) {
    const lot = lots[0]!;
    if (lot.amount.lte(left)) {
      parts.push({ lot, amount: lot.amount, cost: lot.cost });
      left = left.minus(lot.amount);
      lots.shift();
    } else {
      // The part's cost is the lot's in proportion; the rest stays on the lot, so the two add up exactly.
      // A lot is never changed in place (a forked ledger may share it): the rest is a new lot.
      const cost = lot.cost.times(left).div(lot.amount);
      parts.push({ lot, amount: left, cost });
      lots[0] = { ...lot, amount: lot.amount.minus(left), cost: lot.cost.minus(cost) };
      left = ZERO;
    }
  }
  return { parts, uncovered: left };
}

/**
 * Disposes of `amount` of `asset` for `proceeds` (gross) and `fee` (report quote): FIFO, the proceeds
 * and fee split over the parts by amount, the last part taking the remainder so they add up exactly.
 * What no lot covers is closed at no gain (its cost is taken as its net proceeds).
 */
function dispose(
  ledger: Ledger,
  at: Date,
  exchange: string,
  asset: string,
  amount: Dec,
  proceeds: Dec,
  fee: Dec,
): void {
  if (asset === ledger.quote || amount.lte(0)) return;
  const { parts, uncovered } = take(ledger, asset, amount);
  const all: { openedAt: Date | null; amount: Dec; cost: Dec | null }[] = parts.map((p) => ({
    openedAt: p.lot.openedAt,
    amount: p.amount,
    cost: p.cost,
  }));
  if (uncovered.gt(0)) all.push({ openedAt: null, amount: uncovered, cost: null });
  let proceedsLeft = proceeds;
  let feeLeft = fee;
  all.forEach((part, i) => {
    const last = i === all.length - 1;
    const partProceeds = last ? proceedsLeft : proceeds.times(part.amount).div(amount);
    const partFee = last ? feeLeft : fee.times(part.amount).div(amount);
    proceedsLeft = proceedsLeft.minus(partProceeds);
    feeLeft = feeLeft.minus(partFee);
    const cost = part.cost ?? partProceeds.minus(partFee);
    const gain = partProceeds.minus(partFee).minus(cost);
    ledger.closed.push({
      asset,
      exchange,
      openedAt: part.openedAt,
      closedAt: at,
      amount: part.amount,
      cost,
      proceeds: partProceeds,
      fee: partFee,
      gain,
    });
    ledger.realized.set(asset, (ledger.realized.get(asset) ?? ZERO).plus(gain));
  });
}

/**
 * A fee paid in the quote currency itself outside a fill (a withdrawal's): the quote has no lots
 * (it is its own cost), so the fee is a realized loss of its amount, recorded as a closed part.
 */
function spendCash(ledger: Ledger, at: Date, exchange: string, fee: Dec): void {
  if (fee.lte(0)) return;
  ledger.closed.push({
    asset: ledger.quote,
    exchange,
    openedAt: null,
    closedAt: at,
    amount: fee,
    cost: fee,
    proceeds: fee,
    fee,
    gain: fee.neg(),
  });
  ledger.realized.set(ledger.quote, (ledger.realized.get(ledger.quote) ?? ZERO).minus(fee));
}

function applyTrade(ledger: Ledger, e: TradeEvent): void {
  const value = e.total.times(e.rate);
  const feeIn =
    e.feeCurrency === null || e.fee.lte(0)
      ? 'none'
      : e.feeCurrency === e.base
        ? 'base'
        : e.feeCurrency === e.quote
          ? 'quote'
          : 'other';
  // The fee's value in the report quote at the fill: base fees at the fill's price.
  const feeValue =
    feeIn === 'base'
      ? e.fee.times(e.price).times(e.rate)
      : feeIn === 'quote'
        ? e.fee.times(e.rate)
        : feeIn === 'other'
          ? e.fee.times(e.feeRate ?? ZERO)
          : ZERO;
  ledger.fees = ledger.fees.plus(feeValue);
  if (feeIn === 'other') {
    // Spending BNB on the fee disposes of BNB at its value then; the fee itself is carried by the fill.
    dispose(ledger, e.at, e.exchange, e.feeCurrency!, e.fee, feeValue, ZERO);
  }
  if (e.side === 'buy') {
    // Base fee: fewer units for the same money. Quote or third-currency fee: part of the lot's cost.
    const received = feeIn === 'base' ? e.amount.minus(e.fee) : e.amount;
    const cost = feeIn === 'base' ? value : value.plus(feeValue);
    open(ledger, { asset: e.base, exchange: e.exchange, openedAt: e.at, amount: received, cost });
    // Paying with a non-report currency (ETH for BTC/ETH) disposes of it at the fill's value.
    const paid = feeIn === 'quote' ? e.total.plus(e.fee) : e.total;
    dispose(ledger, e.at, e.exchange, e.quote, paid, paid.times(e.rate), ZERO);
  } else {
    // Base fee: the fee units leave too, as if sold at the fill's price and paid back as the fee.
    const given = feeIn === 'base' ? e.amount.plus(e.fee) : e.amount;
    const gross = feeIn === 'base' ? value.plus(feeValue) : value;
    dispose(ledger, e.at, e.exchange, e.base, given, gross, feeValue);
    const received = feeIn === 'quote' ? e.total.minus(e.fee) : e.total;
    open(ledger, {
      asset: e.quote,
      exchange: e.exchange,
      openedAt: e.at,
      amount: received,
      cost: received.times(e.rate),
    });
  }
}

/** Moves `amount` of the oldest lots to `to` (splitting one if needed), keeping their opening time and cost. */
function move(ledger: Ledger, asset: string, amount: Dec, to: string): void {
  if (asset === ledger.quote) return;
  const { parts } = take(ledger, asset, amount);
  const moved = parts.map((p) => ({ asset, exchange: to, openedAt: p.lot.openedAt, amount: p.amount, cost: p.cost }));
  // Back at the front, in their order: they are still the oldest.
  lotsOf(ledger, asset).unshift(...moved);
}

/** Applies events in time order (the caller sorts; equal times keep the caller's order). */
export function applyEvents(ledger: Ledger, events: readonly LedgerEvent[]): Ledger {
  for (const e of events) {
    switch (e.kind) {
      case 'trade':
        applyTrade(ledger, e);
        break;
      case 'deposit':
        ledger.netDeposits = ledger.netDeposits.plus(e.amount.times(e.price));
        open(ledger, {
          asset: e.asset,
          exchange: e.exchange,
          openedAt: e.at,
          amount: e.amount,
          cost: e.amount.times(e.price),
        });
        break;
      case 'withdrawal': {
        // Value leaving the portfolio: a flow at its value then, and its lots closed at that value, so
        // that value − net deposits = realized + unrealized holds. The fee (on top) is spent for nothing.
        ledger.netDeposits = ledger.netDeposits.minus(e.amount.times(e.price));
        const feeValue = e.fee.times(e.price);
        ledger.fees = ledger.fees.plus(feeValue);
        const units = e.amount.plus(e.fee);
        if (e.asset === ledger.quote) spendCash(ledger, e.at, e.exchange, e.fee);
        else dispose(ledger, e.at, e.exchange, e.asset, units, units.times(e.price), feeValue);
        break;
      }
      case 'transfer': {
        if (e.fee.gt(0)) {
          const feeValue = e.fee.times(e.price);
          ledger.fees = ledger.fees.plus(feeValue);
          if (e.asset === ledger.quote) spendCash(ledger, e.at, e.from, e.fee);
          else dispose(ledger, e.at, e.from, e.asset, e.fee, feeValue, feeValue);
        }
        move(ledger, e.asset, e.amount, e.to);
        break;
      }
    }
  }
  return ledger;
}
