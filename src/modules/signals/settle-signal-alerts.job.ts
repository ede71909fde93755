// settle-signal-alerts: an alert answered before its order step ended (TradingView gives up at 3 s) whose
// process then died leaves a claim that owes an order and that no copy will come back for: TradingView
// does not resend. Every few minutes each claim owing its order past the order step's bound is settled:
// the order the door stored under its key recorded, the alert placed while still within its hook's
// max_lag_seconds, or given up and its owner told (docs/decisions/1160).
import { Type, type Static } from 'typebox';
import { defineJob } from '../../platform/jobs.ts';

export interface SettleSignalAlertsDeps {
  alerts: { settle(): Promise<SettleSignalAlertsResult> };
}

export const SettleSignalAlertsResult = Type.Object({
  checked: Type.Integer({ description: 'Claims owing an order past the order step bound, taken over by this run.' }),
  recorded: Type.Integer({ description: 'Of those, whose order the order door had stored: recorded, nothing sent.' }),
  placed: Type.Integer({ description: 'Whose alert was placed by this run.' }),
  refused: Type.Integer({ description: 'Whose alert the order door refused (the owner is told).' }),
  expired: Type.Integer({
    description: "Whose alert was older than its hook's max_lag_seconds: not placed, the owner told.",
  }),
  failed: Type.Integer({ description: 'Left for the next run (the database or the venue failed).' }),
});
export type SettleSignalAlertsResult = Static<typeof SettleSignalAlertsResult>;

export const settleSignalAlertsJob = defineJob({
  name: 'settle-signal-alerts',
  cron: '2-59/5 * * * *',
  summary: 'Settle the alerts whose order step stopped with its process',
  description:
    'Finds the alert claims still owing their order whose holder stopped writing longer ago than the order ' +
    'step can last (its process died after the alert was answered), takes each over and settles it: the order ' +
    "the order door stored under the alert's key is recorded (nothing sent again); otherwise the alert is " +
    "placed through the order door while it is within its hook's max_lag_seconds of when it was fired, or " +
    'given up and its owner told (`signal.refused`). At most 1,000 claims a run; a second run finds none.',
  result: SettleSignalAlertsResult,
  run: (deps: SettleSignalAlertsDeps) => deps.alerts.settle(),
  announce: false,
});
