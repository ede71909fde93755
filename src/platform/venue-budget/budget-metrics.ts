// The venue budgets on /metrics: weight used, limit and cap per venue (read at scrape time from the
// shared counts), waits, refusals and breaker trips as counters, and whether each breaker is open.
import { Counter, Gauge } from 'prom-client';
import type { Metrics } from '../observability/metrics.ts';
import type { VenueBudget } from './venue-budget.ts';

export interface BudgetMetrics {
  waited(venue: string): void;
  refused(venue: string, reason: 'budget' | 'breaker' | 'user_share' | 'key_limit'): void;
  tripped(venue: string, status: number): void;
}

export function createBudgetMetrics(metrics: Metrics, budgets: () => VenueBudget[]): BudgetMetrics {
  const registers = [metrics.registry];
  const waits = new Counter({
    name: 'venue_budget_waits_total',
    help: 'Venue calls that waited for the next minute of the weight budget',
    labelNames: ['venue'],
    registers,
  });
  const refusals = new Counter({
    name: 'venue_budget_refusals_total',
    help: 'Venue calls refused before being sent: budget used up or breaker open (503), a user over their share or a key over its venue limit (429)',
    labelNames: ['venue', 'reason'],
    registers,
  });
  const trips = new Counter({
    name: 'venue_breaker_trips_total',
    help: 'Rate-limit answers (429, 418) that paused every call to a venue',
    labelNames: ['venue', 'status'],
    registers,
  });

  // One read of the shared state per scrape feeds the four gauges.
  let pending: Promise<Awaited<ReturnType<VenueBudget['state']>>[]> | undefined;
  const states = () => {
    pending ??= Promise.all(budgets().map((b) => b.state().catch(() => b.snapshot()))).finally(() => {
      setImmediate(() => {
        pending = undefined;
      });
    });
    return pending;
  };
  const gauge = (name: string, help: string, read: (s: Awaited<ReturnType<VenueBudget['state']>>) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['venue'],
      registers,
      async collect() {
        try {
          for (const state of await states()) this.labels(state.venue).set(read(state));
        } catch {
          // keep the previous values
        }
      },
    });
  gauge(
    'venue_weight_used_1m',
    "Request weight used in the current minute per venue (ours and the venue's count)",
    (s) => s.usedWeight1m,
  );
  gauge('venue_weight_limit_1m', "The venue's request-weight limit per minute", (s) => s.limit1m);
  gauge('venue_weight_cap_1m', 'The part of the limit this service admits calls to', (s) => s.cap1m);
  gauge(
    'venue_breaker_open',
    "1 while the venue's breaker pauses every call to it (a 429 or 418, or failures in a row)",
    (s) => (s.breaker ? 1 : 0),
  );

  return {
    waited: (venue) => waits.labels(venue).inc(),
    refused: (venue, reason) => refusals.labels(venue, reason).inc(),
    tripped: (venue, status) => trips.labels(venue, String(status)).inc(),
  };
}
