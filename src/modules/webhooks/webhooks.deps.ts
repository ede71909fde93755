// What the webhooks module uses from other modules, as narrow slices of what their index.ts return.
// app.ts passes them in.
import type { NotificationsModule } from '../notifications/index.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { UsersModule } from '../users/index.ts';
import type { WEBHOOKS_EVENTS } from './webhooks.events.ts';

export interface WebhooksDeps {
  users: Pick<UsersModule, 'accounts'>;
  messages: NotificationsModule['messages'];
  events: Pick<EventPublisher<typeof WEBHOOKS_EVENTS>, 'admins'>;
}
