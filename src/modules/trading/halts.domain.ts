// Pure rules of halts (docs/decisions/219): why a user is halted, and what a user or the platform
// being halted means for the user's orders.

/** `user`: the user's own halt, lifted by `resume`; `daily_loss`: the day's loss passed the limit. */
export const HALT_CAUSES = ['user', 'daily_loss'] as const;
export type HaltCause = (typeof HALT_CAUSES)[number];

/** Who halted the user's trading, as `GET /api/trading/status` names it. */
export type HaltedBy = 'user' | 'platform';

export interface UserHalt {
  cause: HaltCause;
  reason: string;
  haltedAt: Date;
  /** When it ends by itself (a daily-loss halt, at the next UTC day); null: when resumed. */
  until: Date | null;
}

export interface PlatformHalt {
  reason: string;
  haltedAt: Date;
}

export interface TradingStatus {
  halted: boolean;
  haltedBy: HaltedBy | null;
  reason: string | null;
  haltedAt: Date | null;
  /** When the halt ends by itself; null when it lasts until resumed (or there is none). */
  until: Date | null;
}

/** Whether a user's halt still holds at `now` (a daily-loss halt ends at its `until`). */
export function holds(halt: UserHalt | undefined, now: Date): halt is UserHalt {
  return halt !== undefined && (halt.until === null || halt.until > now);
}

/** The platform's halt comes first: it is the one the user cannot lift. */
export function statusOf(user: UserHalt | undefined, platform: PlatformHalt | undefined, now: Date): TradingStatus {
  if (platform) {
    return { halted: true, haltedBy: 'platform', reason: platform.reason, haltedAt: platform.haltedAt, until: null };
  }
  if (holds(user, now)) {
    return { halted: true, haltedBy: 'user', reason: user.reason, haltedAt: user.haltedAt, until: user.until };
  }
  return { halted: false, haltedBy: null, reason: null, haltedAt: null, until: null };
}

/** The reason a daily-loss halt gives: the loss and the limit it passed. */
export function dailyLossReason(dailyLoss: string, limit: string): string {
  return `Daily loss limit reached: the realized loss of the UTC day is ${dailyLoss}, past daily_loss_limit ${limit}`;
}
