// The portfolio's answers: the ledger of a user's trades (and transfers), valued with the market
// module's prices. No venue is called for a user's data; prices come through the market cache.
import type { Clock } from '../../platform/clock.ts';
import { invalidField, unavailable } from '../../platform/http/errors.ts';
import type { LedgerStore, PortfolioRepository } from './portfolio.repository.ts';
import { applyEvents, dec, emptyLedger, restoreLedger, roundMoney, storeLedger, type Dec, type Ledger, type LedgerEvent } from './ledger.domain.ts';
import { priceLegs, priceThrough, type PriceLeg } from './price-legs.domain.ts';
import { realizedCsv } from './realized-csv.domain.ts';
import { holdingsAt, timeWeightedReturn, xirr } from './returns.domain.ts';
import { summarize, type Holding } from './summary.domain.ts';
import { matchTransfers, type TransferRecord } from './transfer-matching.domain.ts';

/** At one instant: deposits first (money arrives before it is spent), then fills, then what leaves. */
const ORDER: Record<LedgerEvent['kind'], number> = { deposit: 0, trade: 1, transfer: 2, withdrawal: 3 };

export interface PortfolioTradeRow {
  id: string;
  exchange: string;
  symbol: string;
  side: string;
  price: string | null;
  amount: string | null;
  total: string | null;
  fee: string | null;
  feeCurrency: string | null;
  tradeTimestamp: Date;
  /** When it was stored: the incremental ledger's watermark. */
  createdAt: Date;
}

/** What a stored ledger state was built from. */
export interface LedgerMarks {
  trades: number;
  transfers: number;
  /** The newest `createdAt` of the trades applied. */
  watermark: Date | null;
  /** How many of the applied trades were stored within COMMIT_MARGIN_MS before the watermark (inclusive). */
  marginCount: number;
  /** The time of the latest event applied. */
  lastEventAt: Date | null;
}

/** What the portfolio reads from the exchange module. */
export interface PortfolioSource {
  holdings(userId: string, exchange?: string): Promise<{ exchange: string; currency: string; total: string }[]>;
  trades(userId: string): Promise<PortfolioTradeRow[]>;
  /** Complete trades stored after `at`, oldest first. */
  tradesCreatedAfter(userId: string, at: Date): Promise<PortfolioTradeRow[]>;
  /** How many complete trades were stored within [from, to] (inclusive). */
  tradeCountCreatedBetween(userId: string, from: Date, to: Date): Promise<number>;
  /** How many completed transfers are stored. */
  transferCount(userId: string): Promise<number>;
  /** Completed deposits and withdrawals, oldest first. */
  transfers(userId: string): Promise<PortfolioTransferRow[]>;
}

export interface PortfolioTransferRow {
  id: string;
  exchange: string;
  type: 'deposit' | 'withdrawal';
  currency: string;
  amount: string;
  fee: string;
  txid: string | null;
  transferTimestamp: Date;
}

/** What it reads from the market module. */
export interface PortfolioQuotes {
  last(): Promise<{ byPair: ReadonlyMap<string, { symbol: string }>; prices: ReadonlyMap<string, string> }>;
  closeAt(symbol: string, at: Date): Promise<string | null>;
  closed(symbol: string, interval: HistoryInterval, start: number, end: number): Promise<{ openTime: number; close: string }[]>;
}

export type HistoryInterval = '1h' | '1d';
export const HISTORY_INTERVAL_MS: Record<HistoryInterval, number> = { '1h': 3_600_000, '1d': 86_400_000 };
/** Points one history answer holds at most. */
export const MAX_POINTS = 1000;
/** The window when `start` is not given. */
export const DEFAULT_WINDOW_DAYS = 30;

const HOUR_MS = 3_600_000;
/**
 * How long before the watermark a trade may be stored yet become visible only later: an insert's
 * created_at is its statement's start, and a statement lasts at most DATABASE_QUERY_TIMEOUT_MS.
 */
export const COMMIT_MARGIN_MS = 5 * 60_000;
const num = (value: Dec) => Number(value.toString());

export function createPortfolioService(deps: { source: PortfolioSource; quotes: PortfolioQuotes; candles: PortfolioRepository; ledgers: LedgerStore; clock: Clock }) {
  const { source, quotes, clock } = deps;

  /** Prices in `quote`: now (last prices) and at an instant (hourly close, the last price when the venue has none). */
  async function pricer(quoteInput: string) {
    const quote = quoteInput.toUpperCase();
    const { byPair, prices } = await quotes.last();
    const symbolOf = (pair: string) => byPair.get(pair)?.symbol;
    let listed = false;
    for (const pair of byPair.keys()) {
      const [base, q] = pair.split('/');
      if (base === quote || q === quote) {
        listed = true;
        break;
      }
    }
    if (!listed) throw invalidField(['query', 'quote'], `the venue prices no pair in ${quote}`, quoteInput);
    const lastOf = (symbol: string) => {
      const p = prices.get(symbol);
      return p === undefined ? null : dec(p);
    };
    const legsMemo = new Map<string, PriceLeg[] | null>();
    const legs = (asset: string) => {
      if (!legsMemo.has(asset)) legsMemo.set(asset, priceLegs(asset, quote, symbolOf));
      return legsMemo.get(asset)!;
    };
    const closes = new Map<string, Promise<Dec | null>>();
    const closeOf = (symbol: string, at: Date) => {
      const hour = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
      const key = `${symbol}:${hour}`;
      let close = closes.get(key);
      if (!close) {
        close = quotes.closeAt(symbol, new Date(hour)).then(
          (c) => (c === null ? lastOf(symbol) : dec(c)),
          () => lastOf(symbol),
        );
        closes.set(key, close);
      }
      return close;
    };
    return {
      quote,
      legs,
      now(asset: string): Dec | null {
        const path = legs(asset);
        return path ? priceThrough(path, lastOf) : null;
      },
      async at(asset: string, at: Date): Promise<Dec | null> {
        const path = legs(asset);
        if (!path) return null;
        const resolved = new Map<string, Dec | null>();
        for (const leg of path) resolved.set(leg.symbol, await closeOf(leg.symbol, at));
        return priceThrough(path, (s) => resolved.get(s) ?? null);
      },
    };
  }

  type Pricer = Awaited<ReturnType<typeof pricer>>;

  /** The user's events in the report quote, oldest first. A trade whose pair cannot be valued is left out. */
  async function events(userId: string, prices: Pricer): Promise<LedgerEvent[]> {
    return tradeEvents(await source.trades(userId), prices);
  }

  async function tradeEvents(rows: readonly PortfolioTradeRow[], prices: Pricer): Promise<LedgerEvent[]> {
    const out: LedgerEvent[] = [];
    for (const row of rows) {
      if (row.price === null || row.amount === null || row.total === null || (row.side !== 'buy' && row.side !== 'sell')) continue;
      const [base, pairQuote] = row.symbol.split(':')[0]!.split('/');
      if (!base || !pairQuote) continue;
      const at = row.tradeTimestamp;
      const rate = pairQuote === prices.quote ? dec(1) : await prices.at(pairQuote, at);
      if (!rate) continue;
      const fee = dec(row.fee ?? 0);
      const feeCurrency = row.feeCurrency;
      let feeRate: Dec | undefined;
      if (feeCurrency && fee.gt(0) && feeCurrency !== base && feeCurrency !== pairQuote) {
        feeRate = feeCurrency === prices.quote ? dec(1) : ((await prices.at(feeCurrency, at)) ?? dec(0));
      }
      out.push({
        kind: 'trade',
        at,
        exchange: row.exchange,
        base,
        quote: pairQuote,
        side: row.side,
        amount: dec(row.amount),
        price: dec(row.price),
        total: dec(row.total),
        fee,
        feeCurrency,
        rate,
        feeRate,
      });
    }
    return out;
  }

  /** Deposits, withdrawals and the transfers between the user's venues they pair into, valued when they happened. */
  async function transferEvents(userId: string, prices: Pricer, rowsRead?: PortfolioTransferRow[]): Promise<LedgerEvent[]> {
    const rows = rowsRead ?? (await source.transfers(userId));
    const records: TransferRecord[] = rows.map((r) => ({
      id: r.id,
      type: r.type,
      exchange: r.exchange,
      asset: r.currency,
      amount: dec(r.amount),
      fee: dec(r.fee),
      at: r.transferTimestamp,
      txid: r.txid,
    }));
    const { transfers, deposits, withdrawals } = matchTransfers(records);
    const out: LedgerEvent[] = [];
    const priceAt = (asset: string, at: Date) => (asset === prices.quote ? Promise.resolve(dec(1)) : prices.at(asset, at));
    for (const d of deposits) {
      const price = await priceAt(d.asset, d.at);
      if (price) out.push({ kind: 'deposit', at: d.at, exchange: d.exchange, asset: d.asset, amount: d.amount, price });
    }
    for (const w of withdrawals) {
      const price = await priceAt(w.asset, w.at);
      if (price) out.push({ kind: 'withdrawal', at: w.at, exchange: w.exchange, asset: w.asset, amount: w.amount, fee: w.fee, price });
    }
    for (const { withdrawal: w, deposit: d } of transfers) {
      const price = await priceAt(w.asset, w.at);
      // What left the sending venue and did not arrive is the transfer's cost.
      const lost = w.amount.plus(w.fee).minus(d.amount);
      if (price) out.push({ kind: 'transfer', at: w.at, from: w.exchange, to: d.exchange, asset: w.asset, amount: d.amount, fee: lost.gt(0) ? lost : dec(0), price });
    }
    return out;
  }

  /** The watermark of the rows applied, and how many of them were stored within the commit margin before it. */
  function recentMarks(rows: readonly PortfolioTradeRow[]): { watermark: Date; marginCount: number } {
    const newest = rows.reduce((max, r) => Math.max(max, r.createdAt.getTime()), 0);
    return { watermark: new Date(newest), marginCount: rows.filter((r) => r.createdAt.getTime() >= newest - COMMIT_MARGIN_MS).length };
  }

  const byTime = (a: LedgerEvent, b: LedgerEvent) => a.at.getTime() - b.at.getTime() || ORDER[a.kind] - ORDER[b.kind];

  /** The whole ledger, replayed from every stored trade and transfer, and the marks of what it read. */
  async function replay(userId: string, prices: Pricer): Promise<{ ledger: Ledger; marks: LedgerMarks }> {
    const [tradeRows, transferRows] = await Promise.all([source.trades(userId), source.transfers(userId)]);
    const [fills, moves] = await Promise.all([tradeEvents(tradeRows, prices), transferEvents(userId, prices, transferRows)]);
    const all = [...fills, ...moves].sort(byTime);
    const ledger = applyEvents(emptyLedger(prices.quote), all);
    const marks: LedgerMarks = {
      trades: tradeRows.length,
      transfers: transferRows.length,
      ...recentMarks(tradeRows),
      lastEventAt: all.length === 0 ? null : all.at(-1)!.at,
    };
    return { ledger, marks };
  }

  async function ledgerFor(userId: string, prices: Pricer) {
    return (await replay(userId, prices)).ledger;
  }

  /**
   * The ledger for the summary, maintained incrementally (docs/decisions/156): the stored state when
   * nothing was stored since; the stored state plus the trades stored since when they all come after
   * every event it holds; otherwise a replay. Either way the state is stored again.
   */
  /**
   * Ledgers held in memory with the marks they were stored with: while the stored marks are the same,
   * the state is not read again (a large JSON). Never mutated: a change makes a new ledger.
   */
  const held = new Map<string, { marks: LedgerMarks; ledger: Ledger }>();
  const HELD_MAX = 1000;
  const sameMarks = (a: LedgerMarks, b: LedgerMarks) =>
    a.trades === b.trades && a.transfers === b.transfers && a.marginCount === b.marginCount && a.watermark?.getTime() === b.watermark?.getTime() && a.lastEventAt?.getTime() === b.lastEventAt?.getTime();

  async function storedLedger(userId: string, quote: string): Promise<{ marks: LedgerMarks; ledger: Ledger } | undefined> {
    const key = `${userId}:${quote}`;
    const marks = await deps.ledgers.marks(userId, quote);
    if (!marks) return undefined;
    const memo = held.get(key);
    if (memo && sameMarks(memo.marks, marks)) return memo;
    const stored = await deps.ledgers.load(userId, quote);
    if (!stored) return undefined;
    return remember(userId, quote, stored.marks, restoreLedger(stored.state));
  }

  function remember(userId: string, quote: string, marks: LedgerMarks, ledger: Ledger) {
    if (held.size >= HELD_MAX) held.clear();
    const entry = { marks, ledger };
    held.set(`${userId}:${quote}`, entry);
    return entry;
  }

  async function save(userId: string, quote: string, ledger: Ledger, marks: LedgerMarks) {
    await deps.ledgers.save(userId, quote, storeLedger(ledger), marks);
    remember(userId, quote, marks, ledger);
  }

  async function currentLedger(userId: string, prices: Pricer): Promise<Ledger> {
    const [stored, transfers] = await Promise.all([storedLedger(userId, prices.quote), source.transferCount(userId)]);
    if (stored && stored.marks.transfers === transfers && stored.marks.watermark) {
      const { marks } = stored;
      const watermark = marks.watermark!;
      // A statement that began before the watermark may have committed after it was read: the rows
      // within the margin before it must be the ones applied, else the stored state is not trusted.
      const [fresh, inMargin] = await Promise.all([
        source.tradesCreatedAfter(userId, watermark),
        source.tradeCountCreatedBetween(userId, new Date(watermark.getTime() - COMMIT_MARGIN_MS), watermark),
      ]);
      if (inMargin === marks.marginCount) {
        if (fresh.length === 0) return stored.ledger;
        const after = marks.lastEventAt?.getTime() ?? -Infinity;
        if (fresh.every((r) => r.tradeTimestamp.getTime() >= after)) {
          // A copy: the held one may be serving another request.
          const ledger = restoreLedger(storeLedger(stored.ledger));
          const added = (await tradeEvents(fresh, prices)).sort(byTime);
          applyEvents(ledger, added);
          const newest = new Date(fresh.reduce((max, r) => Math.max(max, r.createdAt.getTime()), watermark.getTime()));
          const marginCount = await source.tradeCountCreatedBetween(userId, new Date(newest.getTime() - COMMIT_MARGIN_MS), newest);
          await save(userId, prices.quote, ledger, {
            trades: marks.trades + fresh.length,
            transfers: marks.transfers,
            watermark: newest,
            marginCount,
            lastEventAt: added.at(-1)?.at ?? marks.lastEventAt,
          });
          return ledger;
        }
      }
    }
    const { ledger, marks } = await replay(userId, prices);
    await save(userId, prices.quote, ledger, marks);
    return ledger;
  }

  return {
    async summary(userId: string, query: { quote: string; exchange?: string }) {
      const prices = await pricer(query.quote);
      const [ledger, rows] = await Promise.all([currentLedger(userId, prices), source.holdings(userId, query.exchange)]);
      const holdings: Holding[] = rows.map((r) => ({ asset: r.currency, amount: dec(r.total), price: prices.now(r.currency) }));
      const summary = summarize(ledger, holdings);
      return {
        quote: prices.quote,
        as_of: clock.now().toISOString(),
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
    },

    async history(userId: string, query: { quote: string; start?: string; end?: string; interval: HistoryInterval }) {
      const prices = await pricer(query.quote);
      const step = HISTORY_INTERVAL_MS[query.interval];
      const now = clock.now().getTime();
      const end = Math.min(query.end ? Date.parse(query.end) : now, now);
      const start = query.start ? Date.parse(query.start) : end - DEFAULT_WINDOW_DAYS * 86_400_000;
      if (start >= end) throw invalidField(['query', 'start'], 'start must be earlier than end (and than now)', query.start ?? null);
      // Interval boundaries within the window; the last point is `end` itself when it is now.
      const times: number[] = [];
      for (let ts = Math.ceil(start / step) * step; ts <= end; ts += step) times.push(ts);
      const live = end === now;
      if (live && times.at(-1) !== end) times.push(end);
      if (times.length > MAX_POINTS) {
        throw invalidField(['query', 'start'], `the window holds ${times.length} points of ${query.interval}; at most ${MAX_POINTS}`, query.start ?? null);
      }
      const [fills, moves, rows] = await Promise.all([events(userId, prices), transferEvents(userId, prices), source.holdings(userId)]);
      const current = new Map<string, Dec>();
      for (const r of rows) current.set(r.currency, (current.get(r.currency) ?? dec(0)).plus(r.total));
      const all = [...fills, ...moves];
      const held = holdingsAt(current, all, times);
      // Each symbol's closes over the window, from the stored candles first; the venue only for what is missing.
      const assets = new Set(held.flatMap((m) => [...m].filter(([, amount]) => amount.gt(0)).map(([asset]) => asset)));
      const symbols = new Set<string>();
      for (const asset of assets) for (const leg of prices.legs(asset) ?? []) symbols.add(leg.symbol);
      const boundaries = times.filter((ts) => !(live && ts === end) || ts % step === 0);
      const closes = new Map<string, Map<number, string>>();
      if (boundaries.length > 0) {
        const first = boundaries[0]! - step;
        const last = boundaries.at(-1)! - step;
        for (const symbol of symbols) {
          let stored = await deps.candles.closes(symbol, query.interval, new Date(first), new Date(last));
          if (stored.size < boundaries.length) {
            // Without the closes, the points would value the asset at nothing: no answer beats a wrong one.
            const fetched = await quotes.closed(symbol, query.interval, first, last).catch((error: unknown) => {
              throw unavailable(`The venue did not give the ${query.interval} closes of ${symbol}; try again shortly`, { cause: error, headers: { 'retry-after': '5' } });
            });
            await deps.candles.store(symbol, query.interval, fetched);
            stored = await deps.candles.closes(symbol, query.interval, new Date(first), new Date(last));
          }
          closes.set(symbol, stored);
        }
      }
      const flows = all.filter((e): e is Extract<LedgerEvent, { kind: 'deposit' | 'withdrawal' }> => e.kind === 'deposit' || e.kind === 'withdrawal');
      const flowValue = (e: (typeof flows)[number]) => (e.kind === 'deposit' ? e.amount.times(e.price) : e.amount.times(e.price).neg());
      const points = times.map((ts, i) => {
        // At now: the last prices; at a boundary: the close of the candle that ended there.
        const priceOf = (asset: string) => {
          const path = prices.legs(asset);
          if (!path) return null;
          if (live && ts === end) return prices.now(asset);
          return priceThrough(path, (symbol) => {
            const close = closes.get(symbol)?.get(ts - step);
            return close === undefined ? null : dec(close);
          });
        };
        let value = dec(0);
        for (const [asset, amount] of held[i]!) {
          if (amount.lte(0)) continue;
          const price = asset === prices.quote ? dec(1) : priceOf(asset);
          if (price) value = value.plus(amount.times(price));
        }
        const netDeposits = flows.filter((f) => f.at.getTime() <= ts).reduce((sum, f) => sum.plus(flowValue(f)), dec(0));
        return { ts, value: roundMoney(value), netDeposits: roundMoney(netDeposits) };
      });
      const inPeriod = (from: number, to: number) => flows.filter((f) => f.at.getTime() > from && f.at.getTime() <= to);
      const twr = timeWeightedReturn(
        points.map((p, i) => ({ value: p.value, flow: i === 0 ? dec(0) : inPeriod(points[i - 1]!.ts, p.ts).reduce((sum, f) => sum.plus(flowValue(f)), dec(0)) })),
      );
      const firstPoint = points[0]!;
      const lastPoint = points.at(-1)!;
      const cashflows = [
        { at: firstPoint.ts, amount: -num(firstPoint.value) },
        ...inPeriod(firstPoint.ts, lastPoint.ts).map((f) => ({ at: f.at.getTime(), amount: -num(flowValue(f)) })),
        { at: lastPoint.ts, amount: num(lastPoint.value) },
      ].filter((f) => f.amount !== 0);
      const mwr = xirr(cashflows);
      return {
        quote: prices.quote,
        interval: query.interval,
        points: points.map((p) => ({ ts: new Date(p.ts).toISOString(), value: num(p.value), net_deposits: num(p.netDeposits) })),
        twr: twr === null ? null : num(twr.toDecimalPlaces(8)),
        mwr: mwr === null ? null : Number(mwr.toFixed(8)),
      };
    },

    async realizedCsv(userId: string, query: { quote: string }): Promise<string> {
      const prices = await pricer(query.quote);
      return realizedCsv((await ledgerFor(userId, prices)).closed);
    },
  };
}

export type PortfolioService = ReturnType<typeof createPortfolioService>;
