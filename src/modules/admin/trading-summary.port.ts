// What the admin views need from the exchange module: per-user trade counts and balances. The
// exchange module implements it; until it is wired, every user shows 0 trades and a 0 balance.

export interface TradingSummary {
  totalTrades: number;
  accountBalance: number;
}

export interface TradingSummaryPort {
  /** Summaries of the given users; a user absent from the map has none (0 and 0). */
  forUsers(userIds: string[]): Promise<Map<string, TradingSummary>>;
}

export const EMPTY_SUMMARY: TradingSummary = Object.freeze({ totalTrades: 0, accountBalance: 0 });

/** Used when no exchange data source is wired: nobody has trades or balances yet. */
export const noTradingSummary: TradingSummaryPort = {
  forUsers: async () => new Map(),
};
