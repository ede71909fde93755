// What the jobs module uses: the jobs the other modules bound, with their declared names, and the
// publisher of its own event. app.ts passes them in.
import type { BoundJob } from '../../platform/jobs.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { JOBS_EVENTS } from './jobs.events.ts';

export interface JobsDeps {
  /** Every module's bound jobs (`AppModule.jobs`). */
  jobs: readonly BoundJob[];
  /** Every declared job name, in the order health, the dashboard and the OpenAPI document list them. */
  names: readonly string[];
  events: Pick<EventPublisher<typeof JOBS_EVENTS>, 'admins'>;
}
