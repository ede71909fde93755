// What the admin views need from the exchange module: per-user trade counts and balances. The
// exchange module implements it.
import type { SQL } from 'drizzle-orm';

export interface TradingSummary {
  totalTrades: number;
  accountBalance: number;
}

export interface TradingSummaryPort {
  /** Summaries of the given users; a user absent from the map has none (0 and 0). */
  forUsers(userIds: string[]): Promise<Map<string, TradingSummary>>;
  /**
   * A user's figures as one SQL value, for the users list to read in its own statement: `userId` is
   * the list's id column (decision 194). The value is the exchange module's; only `summarize` reads it.
   */
  figuresOf(userId: SQL): SQL;
  /** The summaries of values `figuresOf` gave, in order; a null value is a user without figures. */
  summarize(figures: readonly unknown[]): Promise<TradingSummary[]>;
}

export const EMPTY_SUMMARY: TradingSummary = Object.freeze({ totalTrades: 0, accountBalance: 0 });
