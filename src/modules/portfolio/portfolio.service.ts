// The portfolio's answers: the ledger of a user's trades (and transfers), valued with the market
// module's prices. No venue is called for a user's data; prices come through the market cache.
import type { Clock } from '../../platform/clock.ts';
import { invalidField } from '../../platform/http/errors.ts';
import {
  applyEvents,
  dec,
  emptyLedger,
  matchTransfers,
  priceLegs,
  priceThrough,
  realizedCsv,
  summarize,
  type Dec,
  type Holding,
  type LedgerEvent,
  type PriceLeg,
  type TransferRecord,
} from './portfolio.domain.ts';

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
}

/** What the portfolio reads from the exchange module. */
export interface PortfolioSource {
  holdings(userId: string, exchange?: string): Promise<{ exchange: string; currency: string; total: string }[]>;
  trades(userId: string): Promise<PortfolioTradeRow[]>;
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
}

const HOUR_MS = 3_600_000;
const num = (value: Dec) => Number(value.toString());

export function createPortfolioService(deps: { source: PortfolioSource; quotes: PortfolioQuotes; clock: Clock }) {
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
    const rows = await source.trades(userId);
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
  async function transferEvents(userId: string, prices: Pricer): Promise<LedgerEvent[]> {
    const rows = await source.transfers(userId);
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

  async function ledgerFor(userId: string, prices: Pricer) {
    const [fills, moves] = await Promise.all([events(userId, prices), transferEvents(userId, prices)]);
    const all = [...fills, ...moves].sort((a, b) => a.at.getTime() - b.at.getTime() || ORDER[a.kind] - ORDER[b.kind]);
    return applyEvents(emptyLedger(prices.quote), all);
  }

  return {
    async summary(userId: string, query: { quote: string; exchange?: string }) {
      const prices = await pricer(query.quote);
      const [ledger, rows] = await Promise.all([ledgerFor(userId, prices), source.holdings(userId, query.exchange)]);
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

    async realizedCsv(userId: string, query: { quote: string }): Promise<string> {
      const prices = await pricer(query.quote);
      return realizedCsv((await ledgerFor(userId, prices)).closed);
    },
  };
}

export type PortfolioService = ReturnType<typeof createPortfolioService>;
