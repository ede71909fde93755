// prune-signal-alerts: deletes the claims of alerts received more than ALERT_RETENTION_DAYS ago, in
// bounded batches. A claim exists to answer a repeated copy of its alert with the order it made
// (decision 220); past the retention no copy can still be one (docs/decisions/071).
import { Type, type Static } from 'typebox';
import { defineJob } from '../../platform/jobs.ts';

/**
 * How long a claim is kept. An alert that gives its time is claimed only within max_lag_seconds
 * (at most a day) of that time, and a copy is accepted only within max_lag_seconds of it too: no copy
 * of it is accepted two days after its claim. An alert that gives no time is never stale; a copy of it
 * (TradingView's retries come within seconds) a month later is taken as a new alert.
 */
export const ALERT_RETENTION_DAYS = 30;
/** Claims deleted per statement: each statement stays short, whatever has piled up. */
const PRUNE_BATCH = 5_000;
const DAY_MS = 86_400_000;

export interface PruneSignalAlertsDeps {
  alerts: { deleteReceivedBefore(before: Date, limit: number): Promise<number> };
  /** Claims per statement; PRUNE_BATCH unless a test wants a small one. */
  batch?: number;
}

export const PruneSignalAlertsResult = Type.Object({
  deleted: Type.Integer({ description: 'Alert claims deleted (received before the retention).' }),
  retention_days: Type.Integer({ description: 'How many days an alert claim is kept.' }),
});
export type PruneSignalAlertsResult = Static<typeof PruneSignalAlertsResult>;

async function pruneSignalAlerts(deps: PruneSignalAlertsDeps, now: Date): Promise<PruneSignalAlertsResult> {
  const before = new Date(now.getTime() - ALERT_RETENTION_DAYS * DAY_MS);
  const batch = deps.batch ?? PRUNE_BATCH;
  let deleted = 0;
  for (;;) {
    const n = await deps.alerts.deleteReceivedBefore(before, batch);
    deleted += n;
    if (n < batch) return { deleted, retention_days: ALERT_RETENTION_DAYS };
  }
}

export const pruneSignalAlertsJob = defineJob({
  name: 'prune-signal-alerts',
  cron: '0 5 * * *',
  summary: 'Delete the claims of TradingView alerts older than the retention',
  description:
    `Deletes the claims of signal alerts received more than ${ALERT_RETENTION_DAYS} days ago, in batches. ` +
    'A claim answers a repeated copy of its alert with the order the first copy made; an alert that gives ' +
    'its time is refused as stale long before that (max_lag_seconds is at most a day), so a deleted claim ' +
    'cannot let a copy place a second order. A second run deletes nothing.',
  result: PruneSignalAlertsResult,
  run: pruneSignalAlerts,
});
