// What the streams module uses from outside it, as narrow slices of what the other modules'
// index.ts return, and the list of declared events. app.ts passes them in.
import type { Guards } from '../../platform/auth/guards.ts';
import type { SseRegistry } from '../../platform/http/sse.ts';
import type { StreamEventList } from '../../platform/stream-events.ts';
import type { UsersModule } from '../users/index.ts';

/** `events`: every declared event (src/declarations.ts); the publisher and the stream's schema come from it. */
export interface StreamsDeps<Events extends StreamEventList> {
  guards: Guards;
  users: {
    sessions: Pick<UsersModule['sessions'], 'principals'>;
    accounts: Pick<UsersModule['accounts'], 'findMany'>;
    apiTokens: Pick<UsersModule['apiTokens'], 'principals'>;
  };
  sse: SseRegistry;
  events: Events;
}
