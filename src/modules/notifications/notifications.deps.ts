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
  /** The streams module's observer registration: every account event this instance publishes. */
  accountEvents: { observe(listener: (event: AccountEvent) => void): () => void };
}
