// What the admin views need from the exchange module: per-user trade counts and balances. The
// exchange module implements it.

export interface TradingSummary {
  totalTrades: number;
  accountBalance: number;
}

export interface TradingSummaryPort {
  /** Summaries of the given users; a user absent from the map has none (0 and 0). */
  forUsers(userIds: string[]): Promise<Map<string, TradingSummary>>;
}

export const EMPTY_SUMMARY: TradingSummary = Object.freeze({ totalTrades: 0, accountBalance: 0 });
