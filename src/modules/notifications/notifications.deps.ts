// What the notifications module uses from outside it: the bearer guards of the preference routes, the
// users' accounts (the address mail goes to) and the account events, which it follows to tell users
// what they chose to hear of. app.ts passes them in.
import type { Guards } from '../../platform/auth/guards.ts';
import type { UsersModule } from '../users/index.ts';

/** An account event as the streams module hands it to its observers. */
export interface AccountEvent {
  id: string;
  type: string;
  userId: string | null;
  data: unknown;
}

export interface NotificationsDeps {
  guards: Guards;
  accounts: Pick<UsersModule['accounts'], 'findById'>;
  /**
   * The streams module's observer registration: every account event this instance publishes; with
   * `companion`, an SQL expression over the stored event (`stored.user_id`) its insert reads beside it,
   * handed to the listener with the event (decision 870).
   */
  accountEvents: {
    observe(listener: (event: AccountEvent, companion?: unknown) => void, companion?: string): () => void;
  };
}
