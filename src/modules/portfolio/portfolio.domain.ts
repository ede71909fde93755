// The portfolio's arithmetic, pure: FIFO lots per asset from trades, deposits, withdrawals and
// transfers between the user's own venues; realized and unrealized results; the rounding at the edge.
// Every amount is a Decimal; nothing here reads a clock, a database or a venue (docs/decisions/150-153).
import { Decimal } from 'decimal.js';

/** Enough digits that the pro-rata splits of one fill never lose a unit of the 18th decimal. */
export const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_EVEN });
export type Dec = InstanceType<typeof D>;

export const dec = (value: string | number | Dec) => new D(value);
const ZERO = new D(0);

/** An open lot: `amount` of `asset` bought, deposited or moved to `exchange` at `openedAt` for `cost` (report quote). */
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
}

export function emptyLedger(quote: string): Ledger {
  return { quote, lots: new Map(), closed: [], realized: new Map(), fees: ZERO, netDeposits: ZERO };
}

function lotsOf(ledger: Ledger, asset: string): Lot[] {
  let lots = ledger.lots.get(asset);
  if (!lots) ledger.lots.set(asset, (lots = []));
  return lots;
}

function open(ledger: Ledger, lot: Lot): void {
  if (lot.asset === ledger.quote || lot.amount.lte(0)) return;
  lotsOf(ledger, lot.asset).push(lot);
}

/** Takes `amount` off the oldest lots of `asset`, oldest first; answers the parts taken (and what no lot covered). */
function take(ledger: Ledger, asset: string, amount: Dec): { parts: { lot: Lot; amount: Dec; cost: Dec }[]; uncovered: Dec } {
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
      const cost = lot.cost.times(left).div(lot.amount);
      parts.push({ lot, amount: left, cost });
      lot.cost = lot.cost.minus(cost);
      lot.amount = lot.amount.minus(left);
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
function dispose(ledger: Ledger, at: Date, exchange: string, asset: string, amount: Dec, proceeds: Dec, fee: Dec): void {
  if (asset === ledger.quote || amount.lte(0)) return;
  const { parts, uncovered } = take(ledger, asset, amount);
  const all: { openedAt: Date | null; amount: Dec; cost: Dec | null }[] = parts.map((p) => ({ openedAt: p.lot.openedAt, amount: p.amount, cost: p.cost }));
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
    ledger.closed.push({ asset, exchange, openedAt: part.openedAt, closedAt: at, amount: part.amount, cost, proceeds: partProceeds, fee: partFee, gain });
    ledger.realized.set(asset, (ledger.realized.get(asset) ?? ZERO).plus(gain));
  });
}

/**
 * A fee paid in the quote currency itself outside a fill (a withdrawal's): the quote has no lots
 * (it is its own cost), so the fee is a realized loss of its amount, recorded as a closed part.
 */
function spendCash(ledger: Ledger, at: Date, exchange: string, fee: Dec): void {
  if (fee.lte(0)) return;
  ledger.closed.push({ asset: ledger.quote, exchange, openedAt: null, closedAt: at, amount: fee, cost: fee, proceeds: fee, fee, gain: fee.neg() });
  ledger.realized.set(ledger.quote, (ledger.realized.get(ledger.quote) ?? ZERO).minus(fee));
}

function applyTrade(ledger: Ledger, e: TradeEvent): void {
  const value = e.total.times(e.rate);
  const feeIn = e.feeCurrency === null || e.fee.lte(0) ? 'none' : e.feeCurrency === e.base ? 'base' : e.feeCurrency === e.quote ? 'quote' : 'other';
  // The fee's value in the report quote at the fill: base fees at the fill's price.
  const feeValue =
    feeIn === 'base' ? e.fee.times(e.price).times(e.rate) : feeIn === 'quote' ? e.fee.times(e.rate) : feeIn === 'other' ? e.fee.times(e.feeRate ?? ZERO) : ZERO;
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
    open(ledger, { asset: e.quote, exchange: e.exchange, openedAt: e.at, amount: received, cost: received.times(e.rate) });
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
        open(ledger, { asset: e.asset, exchange: e.exchange, openedAt: e.at, amount: e.amount, cost: e.amount.times(e.price) });
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

/** One synced deposit or withdrawal, as the matcher sees it. */
export interface TransferRecord {
  id: string;
  type: 'deposit' | 'withdrawal';
  exchange: string;
  asset: string;
  amount: Dec;
  fee: Dec;
  at: Date;
  txid: string | null;
}

/** A deposit counts as the arrival of a withdrawal from another venue of the user's within this long after it. */
export const TRANSFER_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * Pairs withdrawals with deposits of the same asset on another of the user's venues: the same
 * txid, or else the amount sent arriving within TRANSFER_WINDOW_MS after. Each record pairs at most once, the
 * earliest candidate first. Answers the pairs and the records left as outside flows.
 */
export function matchTransfers(records: readonly TransferRecord[]): {
  transfers: { withdrawal: TransferRecord; deposit: TransferRecord }[];
  deposits: TransferRecord[];
  withdrawals: TransferRecord[];
} {
  const sorted = [...records].sort((a, b) => a.at.getTime() - b.at.getTime() || a.id.localeCompare(b.id));
  const withdrawals = sorted.filter((r) => r.type === 'withdrawal');
  const deposits = sorted.filter((r) => r.type === 'deposit');
  const used = new Set<string>();
  const transfers: { withdrawal: TransferRecord; deposit: TransferRecord }[] = [];
  for (const w of withdrawals) {
    const candidates = deposits.filter((d) => !used.has(d.id) && d.asset === w.asset && d.exchange !== w.exchange);
    const byTx = w.txid ? candidates.find((d) => d.txid === w.txid) : undefined;
    const byAmount = candidates.find((d) => {
      const lag = d.at.getTime() - w.at.getTime();
      return lag >= 0 && lag <= TRANSFER_WINDOW_MS && d.amount.eq(w.amount);
    });
    const d = byTx ?? byAmount;
    if (!d) continue;
    used.add(d.id).add(w.id);
    transfers.push({ withdrawal: w, deposit: d });
  }
  return { transfers, deposits: deposits.filter((d) => !used.has(d.id)), withdrawals: withdrawals.filter((w) => !used.has(w.id)) };
}

/** Rounding at the edge (docs/decisions/153): amounts to 8 decimals, quote values to 2, half to even. */
export const roundAmount = (value: Dec) => value.toDecimalPlaces(8, Decimal.ROUND_HALF_EVEN);
export const roundMoney = (value: Dec) => value.toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN);

/** The cost of the newest `held` units of an asset's lots (the ones FIFO keeps), and the units no lot covers. */
export function heldCost(lots: readonly Lot[], held: Dec): { cost: Dec; uncovered: Dec } {
  let left = held;
  let cost = ZERO;
  for (let i = lots.length - 1; i >= 0 && left.gt(0); i -= 1) {
    const lot = lots[i]!;
    if (lot.amount.lte(left)) {
      cost = cost.plus(lot.cost);
      left = left.minus(lot.amount);
    } else {
      cost = cost.plus(lot.cost.times(left).div(lot.amount));
      left = ZERO;
    }
  }
  return { cost, uncovered: left };
}

export interface Holding {
  asset: string;
  amount: Dec;
  /** Last price in the report quote; null when no market prices it. */
  price: Dec | null;
}

export interface AssetSummary {
  asset: string;
  amount: Dec;
  price: Dec | null;
  value: Dec;
  cost_basis: Dec;
  unrealized_pnl: Dec;
  realized_pnl: Dec;
}

export interface Summary {
  value: Dec;
  cost_basis: Dec;
  unrealized_pnl: Dec;
  realized_pnl: Dec;
  fees: Dec;
  net_deposits: Dec;
  assets: AssetSummary[];
}

/**
 * Values holdings against the ledger, rounded: each asset's value and cost basis to 2 decimals, its
 * unrealized result their difference, every total the sum of the rounded parts (so they add up
 * exactly). The quote currency is worth 1 and is its own cost. Units held beyond every lot (held
 * before the synced history) are costed at today's price: no result is invented for them. Units
 * held without a price are valued at 0 and costed at 0. Assets sold out that still have a realized
 * result are listed with amount 0.
 */
export function summarize(ledger: Ledger, holdings: readonly Holding[]): Summary {
  const byAsset = new Map<string, Holding>();
  for (const h of holdings) {
    const seen = byAsset.get(h.asset);
    byAsset.set(h.asset, seen ? { ...seen, amount: seen.amount.plus(h.amount) } : h);
  }
  for (const asset of ledger.realized.keys()) if (!byAsset.has(asset)) byAsset.set(asset, { asset, amount: ZERO, price: null });
  const assets: AssetSummary[] = [];
  for (const h of [...byAsset.values()].sort((a, b) => a.asset.localeCompare(b.asset))) {
    const price = h.asset === ledger.quote ? new D(1) : h.price;
    const value = roundMoney(price ? h.amount.times(price) : ZERO);
    let cost: Dec;
    if (h.asset === ledger.quote) cost = h.amount;
    else if (!price) cost = ZERO;
    else {
      const held = heldCost(ledger.lots.get(h.asset) ?? [], h.amount);
      cost = held.cost.plus(held.uncovered.times(price));
    }
    const costBasis = roundMoney(cost);
    assets.push({
      asset: h.asset,
      amount: roundAmount(h.amount),
      price,
      value,
      cost_basis: costBasis,
      unrealized_pnl: value.minus(costBasis),
      realized_pnl: roundMoney(ledger.realized.get(h.asset) ?? ZERO),
    });
  }
  const sum = (pick: (a: AssetSummary) => Dec) => assets.reduce((acc, a) => acc.plus(pick(a)), ZERO);
  return {
    value: sum((a) => a.value),
    cost_basis: sum((a) => a.cost_basis),
    unrealized_pnl: sum((a) => a.unrealized_pnl),
    realized_pnl: sum((a) => a.realized_pnl),
    fees: roundMoney(ledger.fees),
    net_deposits: roundMoney(ledger.netDeposits),
    assets,
  };
}

/** RFC 4180: fields with a comma, quote, CR or LF quoted, quotes doubled; lines end CRLF. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

// Spreadsheets run a cell starting with one of these as a formula (OWASP "CSV injection").
const FORMULA_START = /^[=+\-@\t\r]/;
/** A text cell (asset, venue): a leading quote when it could run as a formula. Numbers are written as they are. */
const textCell = (value: string) => csvField(FORMULA_START.test(value) ? `'${value}` : value);

export const REALIZED_CSV_HEADER = 'asset,exchange,opened_at,closed_at,amount,cost,proceeds,fee,gain,holding_days';

/**
 * The rows of realized.csv: amount to 8 decimals; cost, proceeds and fee to 2; gain = proceeds −
 * fee − cost of the rounded figures (so each row adds up); holding_days whole days between opening
 * and closing (floor), empty with opened_at when no lot covered the amount. A text cell that could
 * run as a formula in a spreadsheet gets a leading quote.
 */
export function realizedCsv(parts: readonly ClosedPart[]): string {
  const lines = [REALIZED_CSV_HEADER];
  for (const p of parts) {
    const cost = roundMoney(p.cost);
    const proceeds = roundMoney(p.proceeds);
    const fee = roundMoney(p.fee);
    const days = p.openedAt ? String(Math.floor((p.closedAt.getTime() - p.openedAt.getTime()) / 86_400_000)) : '';
    lines.push(
      [
        textCell(p.asset),
        textCell(p.exchange),
        p.openedAt ? p.openedAt.toISOString() : '',
        p.closedAt.toISOString(),
        roundAmount(p.amount).toFixed(8),
        cost.toFixed(2),
        proceeds.toFixed(2),
        fee.toFixed(2),
        proceeds.minus(fee).minus(cost).toFixed(2),
        days,
      ].join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** One conversion step: the price of `symbol`, or its inverse. */
export interface PriceLeg {
  symbol: string;
  invert: boolean;
}

/** Currencies a price may go through when no pair joins an asset to the quote directly. */
export const BRIDGES = ['USDT', 'BTC'] as const;

/**
 * How one unit of `asset` is priced in `quote` from the venue's pairs (`BASE/QUOTE` → symbol): a
 * direct pair, its inverse, or through one bridge currency. Empty for the quote itself; null when
 * nothing joins them.
 */
export function priceLegs(asset: string, quote: string, symbolOf: (pair: string) => string | undefined): PriceLeg[] | null {
  if (asset === quote) return [];
  const direct = (from: string, to: string): PriceLeg | null => {
    const straight = symbolOf(`${from}/${to}`);
    if (straight) return { symbol: straight, invert: false };
    const inverse = symbolOf(`${to}/${from}`);
    return inverse ? { symbol: inverse, invert: true } : null;
  };
  const one = direct(asset, quote);
  if (one) return [one];
  for (const bridge of BRIDGES) {
    if (bridge === asset || bridge === quote) continue;
    const first = direct(asset, bridge);
    const second = first && direct(bridge, quote);
    if (first && second) return [first, second];
  }
  return null;
}

/** The price the legs give from each symbol's price; null when one is missing or zero. */
export function priceThrough(legs: readonly PriceLeg[], priceOf: (symbol: string) => Dec | null): Dec | null {
  let price = new D(1);
  for (const leg of legs) {
    const p = priceOf(leg.symbol);
    if (!p || p.lte(0)) return null;
    price = leg.invert ? price.div(p) : price.times(p);
  }
  return price;
}

/** How one event changes the amounts held per asset (all venues together). Transfers change only by their fee. */
export function balanceDeltas(e: LedgerEvent): { asset: string; amount: Dec }[] {
  switch (e.kind) {
    case 'deposit':
      return [{ asset: e.asset, amount: e.amount }];
    case 'withdrawal':
      return [{ asset: e.asset, amount: e.amount.plus(e.fee).neg() }];
    case 'transfer':
      return e.fee.gt(0) ? [{ asset: e.asset, amount: e.fee.neg() }] : [];
    case 'trade': {
      const sign = e.side === 'buy' ? 1 : -1;
      const out = [
        { asset: e.base, amount: e.amount.times(sign) },
        { asset: e.quote, amount: e.total.times(-sign) },
      ];
      if (e.feeCurrency && e.fee.gt(0)) out.push({ asset: e.feeCurrency, amount: e.fee.neg() });
      return out;
    }
  }
}

/**
 * The amounts held at each of `times` (ascending), worked back from the amounts held now: what
 * every later event added is taken off again. Never below 0 (history older than the synced one).
 */
export function holdingsAt(now: ReadonlyMap<string, Dec>, events: readonly LedgerEvent[], times: readonly number[]): Map<string, Dec>[] {
  const held = new Map(now);
  const sorted = [...events].sort((a, b) => b.at.getTime() - a.at.getTime());
  const out: Map<string, Dec>[] = new Array(times.length);
  let next = 0;
  for (let i = times.length - 1; i >= 0; i -= 1) {
    const t = times[i]!;
    while (next < sorted.length && sorted[next]!.at.getTime() > t) {
      for (const d of balanceDeltas(sorted[next]!)) held.set(d.asset, (held.get(d.asset) ?? ZERO).minus(d.amount));
      next += 1;
    }
    out[i] = new Map([...held].map(([asset, amount]) => [asset, amount.gt(0) ? amount : ZERO]));
  }
  return out;
}

/**
 * Time-weighted return over points: each period's return is (value at its end − the flows within
 * it) / value at its start − 1, flows counted at the period's end; periods starting at 0 are
 * skipped. The product of (1 + r) − 1; null when no period counts (docs/decisions/154).
 */
export function timeWeightedReturn(points: readonly { value: Dec; flow: Dec }[]): Dec | null {
  let growth = new D(1);
  let counted = 0;
  for (let i = 1; i < points.length; i += 1) {
    const start = points[i - 1]!.value;
    if (start.lte(0)) continue;
    growth = growth.times(points[i]!.value.minus(points[i]!.flow).div(start));
    counted += 1;
  }
  return counted === 0 ? null : growth.minus(1);
}

const YEAR_MS = 365 * 86_400_000;

/**
 * XIRR: the annual rate r with Σ amount_k / (1 + r)^((t_k − t_0) / 365 days) = 0, amounts from the
 * investor's side (paid in negative, value out positive). Newton from 10 %, then bisection over
 * (−0.999999, 1e15) when Newton does not settle; null without a sign change. Double precision: a rate
 * is a fraction to report, not money (docs/decisions/154).
 */
export function xirr(flows: readonly { at: number; amount: number }[]): number | null {
  if (flows.length < 2 || !flows.some((f) => f.amount > 0) || !flows.some((f) => f.amount < 0)) return null;
  const t0 = Math.min(...flows.map((f) => f.at));
  const years = flows.map((f) => ({ y: (f.at - t0) / YEAR_MS, a: f.amount }));
  const npv = (r: number) => years.reduce((s, f) => s + f.a / (1 + r) ** f.y, 0);
  const slope = (r: number) => years.reduce((s, f) => s - (f.y * f.a) / (1 + r) ** (f.y + 1), 0);
  let r = 0.1;
  for (let i = 0; i < 100; i += 1) {
    const v = npv(r);
    const d = slope(r);
    if (!Number.isFinite(v) || !Number.isFinite(d) || d === 0) break;
    const next = r - v / d;
    if (!Number.isFinite(next) || next <= -1) break;
    if (Math.abs(next - r) < 1e-12) return next;
    r = next;
  }
  let lo = -0.999999;
  let hi = 1e15;
  let flo = npv(lo);
  if (Number.isNaN(flo) || Math.sign(flo) === Math.sign(npv(hi))) return null;
  for (let i = 0; i < 300; i += 1) {
    const mid = (lo + hi) / 2;
    const fm = npv(mid);
    if (Math.sign(fm) === Math.sign(flo)) {
      lo = mid;
      flo = fm;
    } else hi = mid;
    if (hi - lo < 1e-12) break;
  }
  return (lo + hi) / 2;
}

/** A ledger as JSON (decimal strings), without its closed parts: what the incremental store keeps. */
export interface StoredLedger {
  quote: string;
  lots: { asset: string; exchange: string; openedAt: string; amount: string; cost: string }[];
  realized: Record<string, string>;
  fees: string;
  netDeposits: string;
}

export function storeLedger(ledger: Ledger): StoredLedger {
  return {
    quote: ledger.quote,
    lots: [...ledger.lots.values()].flat().map((l) => ({ asset: l.asset, exchange: l.exchange, openedAt: l.openedAt.toISOString(), amount: l.amount.toString(), cost: l.cost.toString() })),
    realized: Object.fromEntries([...ledger.realized].map(([asset, gain]) => [asset, gain.toString()])),
    fees: ledger.fees.toString(),
    netDeposits: ledger.netDeposits.toString(),
  };
}

/** The stored state back as a ledger (lots in their order; no closed parts). */
export function restoreLedger(stored: StoredLedger): Ledger {
  const ledger = emptyLedger(stored.quote);
  for (const l of stored.lots) lotsOf(ledger, l.asset).push({ asset: l.asset, exchange: l.exchange, openedAt: new Date(l.openedAt), amount: new D(l.amount), cost: new D(l.cost) });
  for (const [asset, gain] of Object.entries(stored.realized)) ledger.realized.set(asset, new D(gain));
  ledger.fees = new D(stored.fees);
  ledger.netDeposits = new D(stored.netDeposits);
  return ledger;
}
