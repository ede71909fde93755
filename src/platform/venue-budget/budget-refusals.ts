// What the venue budget answers with when it refuses a call (nothing was sent), and how its state
// shows on the wire (venue health, the dashboard's integrations).
import { AppError } from '../http/errors.ts';
import type { BudgetState } from './venue-budget.ts';

/** Nothing was sent: the budget or the breaker refused the call. Always 503 with Retry-After. */
export class BudgetRefusal extends AppError {
  constructor(
    readonly venue: string,
    readonly reason: 'budget' | 'breaker',
    detail: string,
    readonly retryAfterSeconds: number,
    /** False when failures in a row, not the venue's rate limit, opened the breaker. */
    readonly rateLimited = true,
  ) {
    super('unavailable', detail, {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
      outage: { dependency: venue, failure: reason === 'breaker' ? 'breaker_open' : 'budget_spent' },
    });
    this.name = 'BudgetRefusal';
  }
}

/**
 * Nothing was sent: this user's share of the venue's minute is spent (decision 200). A 429 with
 * Retry-After, the user's own limit, while the budget still serves everyone else.
 */
export class UserShareRefusal extends AppError {
  constructor(
    readonly venue: string,
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', detail, { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) } });
    this.name = 'UserShareRefusal';
  }
}

/** The budget on the wire, as venue health and the dashboard's integrations show it (snake_case, ISO times). */
export function budgetView(state: BudgetState) {
  const { modelled } = state;
  return {
    used_weight_1m: modelled ? state.usedWeight1m : null,
    limit_1m: modelled ? state.limit1m : null,
    cap_1m: modelled ? state.cap1m : null,
    share: state.share,
    limit_source: modelled ? state.limitSource : null,
    breaker_open: state.breaker !== null,
    breaker_until: state.breaker ? new Date(state.breaker.until).toISOString() : null,
    breaker_reason: state.breaker?.reason ?? null,
    scope: state.scope,
  };
}
