// settle-issue-intents: a create at Linear whose audit row our database could not write keeps its intent
// (decision 1010) until a retry or the next write settles it. With neither, the issue stood at Linear with
// no audit row; every 10 minutes the intents older than an agent filing's lock are looked up at the tracker
// and settled: audited once if the issue is there, dropped if it is not (docs/decisions/1170).
import { Type, type Static } from 'typebox';
import { defineJob } from '../../platform/jobs.ts';

export interface SettleIssueIntentsDeps {
  tracker: { settleIntents(): Promise<SettleIssueIntentsResult> };
}

export const SettleIssueIntentsResult = Type.Object({
  checked: Type.Integer({ description: 'Intents left behind that were looked up at the tracker.' }),
  audited: Type.Integer({ description: 'Of those, whose issue exists: its audit row written now, once.' }),
  dropped: Type.Integer({ description: 'Whose issue the tracker does not hold (its create never happened).' }),
});
export type SettleIssueIntentsResult = Static<typeof SettleIssueIntentsResult>;

export const settleIssueIntentsJob = defineJob({
  name: 'settle-issue-intents',
  cron: '7-59/10 * * * *',
  summary: 'Write the audit of tracker issues whose create outlived our database',
  description:
    'An issue created at Linear whose audit row could not be written (the database away after Linear wrote) ' +
    'keeps an intent; this job looks up, at the tracker, each intent older than an agent filing lock (at most ' +
    '200 a run): an issue that exists gets its audit row, once, and one that does not has its intent dropped. ' +
    'The tracker or the database failing ends the run (failed); the rest wait for the next. Nothing to do on ' +
    'the local tracker, whose writes are audited in their own transaction.',
  result: SettleIssueIntentsResult,
  run: (deps: SettleIssueIntentsDeps) => deps.tracker.settleIntents(),
  announce: false,
});
