// A bound on how long an answer waits for one venue; the venue call itself may finish later.
import { VenueError } from './adapters/venue-gateway.ts';

export function withTimeout<T>(work: Promise<T>, ms: number, venue: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new VenueError(venue, 'timeout', `${venue} did not answer within ${ms} ms`)), ms);
  });
  // A late failure of the abandoned call must not surface as an unhandled rejection.
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
