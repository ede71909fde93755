// What the tracker uses from other modules, as narrow slices of what their index.ts return.
// app.ts passes them in.
import type { NotificationsModule } from '../notifications/index.ts';
import type { UsersModule } from '../users/index.ts';

export interface TrackerDeps {
  users: { accounts: Pick<UsersModule['accounts'], 'findById' | 'names'>; guards: UsersModule['guards'] };
  messages: Pick<NotificationsModule['messages'], 'chat'>;
}
