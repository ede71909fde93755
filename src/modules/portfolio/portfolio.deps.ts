// What the portfolio reads from other modules: the exchange module's stored balances, trades and
// transfers, and the market module's pairs and prices. app.ts passes them in.
import type { Guards } from '../../platform/auth/guards.ts';

/** The candle intervals a history is asked in. */
export type HistoryInterval = '1h' | '1d';

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

/** What the portfolio reads from the exchange module. */
export interface PortfolioSource {
  holdings(userId: string, exchange?: string): Promise<{ exchange: string; currency: string; total: string }[]>;
  trades(userId: string): Promise<PortfolioTradeRow[]>;
  /** Complete trades stored after `at`, oldest first. */
  tradesCreatedAfter(userId: string, at: Date): Promise<PortfolioTradeRow[]>;
  /**
   * How many complete trades were stored within [from, to] (inclusive), and the database's clock when
   * the count began (the clock `createdAt` is stored by).
   */
  tradeCountCreatedBetween(userId: string, from: Date, to: Date): Promise<{ count: number; at: Date }>;
  /** How many completed transfers are stored. */
  transferCount(userId: string): Promise<number>;
  /** Completed deposits and withdrawals, oldest first. */
  transfers(userId: string): Promise<PortfolioTransferRow[]>;
}

/** What it reads from the market module. */
export interface PortfolioQuotes {
  last(): Promise<{ byPair: ReadonlyMap<string, { symbol: string }>; prices: ReadonlyMap<string, string> }>;
  closeAt(symbol: string, at: Date): Promise<string | null>;
  closed(
    symbol: string,
    interval: HistoryInterval,
    start: number,
    end: number,
  ): Promise<{ openTime: number; close: string }[]>;
}

/** What the module's factory takes from the others. */
export interface PortfolioDeps {
  guards: Guards;
  source: PortfolioSource;
  quotes: PortfolioQuotes;
}
