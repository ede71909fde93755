// What the streams module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import { streamEventsTable } from './streams.tables.ts';
import { pruneStreamEventsJob } from './prune-stream-events.job.ts';

export const STREAMS_MODULE = defineModule({
  name: 'streams',
  tables: [({ eventTypes }) => ({ streamEvents: streamEventsTable(eventTypes) })],
  jobs: [pruneStreamEventsJob],
});
