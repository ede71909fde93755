// Per-user trading figures for the admin user list: stored trades and an approximate USD value of
// the latest balance snapshots. Database and cache reads only; no venue is called.
import { Decimal } from 'decimal.js';
import type { TradingSummaryRepository } from './trading-summary.repository.ts';
import type { UsdPrices } from './usd-prices.ts';

interface TradingSummary {
  totalTrades: number;
  /** USD: stablecoins at 1, other currencies at a price seen within the hour, else 0. */
  accountBalance: number;
}

export function createTradingSummary(deps: { repo: TradingSummaryRepository; prices: Pick<UsdPrices, 'lookup'> }) {
  return {
    async forUsers(userIds: string[]): Promise<Map<string, TradingSummary>> {
      const figures = await deps.repo.figuresForUsers(userIds);
      const counts = new Map<string, number>();
      const totals: { userId: string; currency: string; amount: string }[] = [];
      for (const { userId, currency, amount } of figures) {
        if (currency === null) counts.set(userId, Number(amount));
        else totals.push({ userId, currency, amount });
      }
      const prices = await deps.prices.lookup(totals.map((t) => t.currency));
      const values = new Map<string, Decimal>();
      for (const { userId, currency, amount } of totals) {
        const price = prices.get(currency);
        if (price === undefined) continue;
        values.set(userId, (values.get(userId) ?? new Decimal(0)).plus(new Decimal(amount).times(price)));
      }
      return new Map(
        userIds.map((id) => [
          id,
          { totalTrades: counts.get(id) ?? 0, accountBalance: Number((values.get(id) ?? new Decimal(0)).toFixed(2)) },
        ]),
      );
    },
  };
}
