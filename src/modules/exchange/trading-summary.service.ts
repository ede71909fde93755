// Per-user trading figures for the admin user list: stored trades and an approximate USD value of
// the latest balance snapshots. Database and cache reads only; no venue is called.
import { Decimal } from 'decimal.js';
import type { SQL } from 'drizzle-orm';
import { tradingFiguresOf, type TradingFigures, type TradingSummaryRepository } from './trading-summary.repository.ts';
import type { UsdPrices } from './usd-prices.ts';

interface TradingSummary {
  totalTrades: number;
  /** USD: stablecoins at 1, other currencies at a price seen within the hour, else 0. */
  accountBalance: number;
}

const NO_FIGURES: TradingFigures = { trades: null, balances: null };

export function createTradingSummary(deps: { repo: TradingSummaryRepository; prices: Pick<UsdPrices, 'lookup'> }) {
  /** The summaries of users' figures, in order, with one price lookup for all of them. */
  async function summarize(figures: readonly (TradingFigures | null | undefined)[]): Promise<TradingSummary[]> {
    const known = figures.map((f) => f ?? NO_FIGURES);
    const prices = await deps.prices.lookup(known.flatMap((f) => (f.balances ?? []).map(([currency]) => currency)));
    return known.map(({ trades, balances }) => {
      let value = new Decimal(0);
      for (const [currency, amount] of balances ?? []) {
        const price = prices.get(currency);
        if (price !== undefined) value = value.plus(new Decimal(amount).times(price));
      }
      return { totalTrades: Number(trades ?? 0), accountBalance: Number(value.toFixed(2)) };
    });
  }

  return {
    async forUsers(userIds: string[]): Promise<Map<string, TradingSummary>> {
      const figures = await deps.repo.figuresForUsers(userIds);
      const summaries = await summarize(userIds.map((id) => figures.get(id)));
      return new Map(userIds.map((id, i) => [id, summaries[i]!]));
    },

    /** A user's figures as one SQL value, for a list of users to carry per row; `userId` is its id column. */
    figuresOf: (userId: SQL): SQL => tradingFiguresOf(userId),

    /** The summaries of values `figuresOf` gave, in order. */
    summarize: (figures: readonly unknown[]) => summarize(figures as readonly (TradingFigures | null)[]),
  };
}
