// reconcile-orders: every order not final (live at its venue, paper in the engine) is looked up by its
// client order id and brought to the venue's state, its new fills recorded once (docs/decisions/212).
// Runs every ORDER_RECONCILE_SECONDS (its cron is built from it) and once as the server starts.
import { Type, type Static } from 'typebox';
import { defineJob } from '../../platform/jobs.ts';

export interface ReconcileOrdersDeps {
  orders: { reconcile(): Promise<ReconcileOrdersResult> };
}

export const ReconcileOrdersResult = Type.Object({
  checked: Type.Integer({ description: 'Orders not final that were looked up.' }),
  changed: Type.Integer({ description: 'Of those, orders whose status or fills changed.' }),
  unanswered: Type.Integer({
    description:
      'Of those, orders the venue did not answer for (a timeout, an outage, no room in the budget): left as ' +
      'they were for the next pass.',
  }),
  failed: Type.Integer({ description: 'Orders whose lookup failed unexpectedly (left for the next pass).' }),
});
export type ReconcileOrdersResult = Static<typeof ReconcileOrdersResult>;

/** The job's cron from ORDER_RECONCILE_SECONDS: seconds under a minute, else whole minutes. */
export function reconcileOrdersCron(seconds: number): string {
  if (seconds < 60) return `*/${seconds} * * * * *`;
  return `0 */${Math.max(1, Math.round(seconds / 60))} * * * *`;
}

export const reconcileOrdersJob = defineJob({
  name: 'reconcile-orders',
  cron: reconcileOrdersCron(30),
  summary: 'Bring every order not final to its venue state',
  description:
    'Looks up every order that is not final (pending, unknown, open, partially filled) by its client order ' +
    "id and applies the venue's answer: new fills are stored once under the venue trade id (as the user's " +
    'trades for live orders), an order the venue never received is rejected once its receive window has ' +
    'passed, one it cannot answer for now is left for the next pass. A pass looks up at most 1,000 orders: ' +
    'those whose outcome is open first, then the least recently looked up. Its period is ORDER_RECONCILE_SECONDS ' +
    '(30 by default); the server also runs one pass as it starts.',
  result: ReconcileOrdersResult,
  run: (deps: ReconcileOrdersDeps) => deps.orders.reconcile(),
  announce: false,
});
