// prune-stream-events: deletes account-stream events older than the replay window, which no
// reconnecting client can ask for again.
import { Type, type Static } from 'typebox';
import { defineJob } from '../../platform/jobs.ts';

interface PruneStreamEventsDeps {
  streamEvents: { prune(): Promise<number> };
}

export const PruneStreamEventsResult = Type.Object({
  deleted: Type.Integer({ description: 'Stored stream events deleted (older than the 24 h replay window).' }),
});
export type PruneStreamEventsResult = Static<typeof PruneStreamEventsResult>;

async function pruneStreamEvents(deps: PruneStreamEventsDeps): Promise<PruneStreamEventsResult> {
  return { deleted: await deps.streamEvents.prune() };
}

export const pruneStreamEventsJob = defineJob({
  name: 'prune-stream-events',
  cron: '*/10 * * * *',
  summary: 'Delete stream events older than the replay window',
  description:
    'Deletes the stored account-stream events older than 24 h: a client reconnecting with `Last-Event-ID` ' +
    'is replayed the events of the last 24 h only, so older ones serve nobody. The streams module also ' +
    'prunes once as it starts. Housekeeping: its runs are recorded and shown in health, but not announced on ' +
    "admins' streams (`job.finished`).",
  result: PruneStreamEventsResult,
  run: pruneStreamEvents,
  announce: false,
});
