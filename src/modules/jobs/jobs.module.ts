// What the jobs module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import { scheduledJobTables } from './jobs.tables.ts';
import { JOBS_EVENTS } from './jobs.events.ts';

export const JOBS_MODULE = defineModule({
  name: 'jobs',
  tables: [({ jobNames }) => scheduledJobTables(jobNames)],
  events: JOBS_EVENTS,
});
