// A bound on how long an answer waits for one venue; the venue call itself may finish later.
import { withTimeout } from '../../platform/timeouts.ts';
import { VenueError } from './adapters/venue-gateway.ts';

/** `work`, or a venue `timeout` error once `ms` have passed. */
export function venueWithin<T>(work: Promise<T>, ms: number, venue: string): Promise<T> {
  return withTimeout(work, ms, () => new VenueError(venue, 'timeout', `${venue} did not answer within ${ms} ms`));
}
