// The venue door (docs/decisions/250): the one place a request to a venue gets its fetch. A module
// asks for `egress.venue(id)` and receives the venue's shared budget and a fetch that goes through
// it (decisions 110, 174, 200); no module builds a guarded fetch itself, nor calls a venue with the
// platform's raw fetch. test/modules/boundaries.test.ts holds every module to it.
import { guardedFetch, type GuardedFetch } from './guarded-fetch.ts';
import type { VenueBudget, VenueBudgets } from './venue-budget.ts';

/** One venue's door: its budget and breaker, and the fetch that is charged to them. */
export interface VenueEgress {
  readonly budget: VenueBudget;
  /** For the platform's own calls (market data, public venue data): charged to the venue alone. */
  readonly fetch: GuardedFetch;
  /**
   * For calls made on a user's behalf: charged to that user's share of the venue's budget too, and
   * with `key` (a digest of the API key they are signed with) to the venue's limits of that key (decision 255).
   */
  forUser(user: string | undefined, key?: string): GuardedFetch;
}

export interface Egress {
  /** The door of venue `id`: the same budget for every caller, on every instance. */
  venue(id: string): VenueEgress;
}

/**
 * `base` is where requests finally go: the venues' transport over node:http (decision 530), or the fetch
 * handed to the platform (tests).
 */
export function createEgress(budgets: Pick<VenueBudgets, 'venue'>, base: typeof fetch): Egress {
  const doors = new Map<string, VenueEgress>();
  return {
    venue(id) {
      const known = doors.get(id);
      if (known) return known;
      const budget = budgets.venue(id);
      const through = (user?: string, key?: string): GuardedFetch =>
        guardedFetch(budget, base, {
          ...(user === undefined ? {} : { user }),
          ...(key === undefined ? {} : { key }),
        });
      const own = through();
      const door: VenueEgress = {
        budget,
        fetch: own,
        forUser: (user, key) => (user === undefined && key === undefined ? own : through(user, key)),
      };
      doors.set(id, door);
      return door;
    },
  };
}
