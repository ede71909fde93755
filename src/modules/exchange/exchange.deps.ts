// What the exchange module uses from other modules: the bearer guards and the streams module's
// publisher, narrowed to the events it declares. app.ts passes them in.
import type { Guards } from '../../platform/auth/guards.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { EXCHANGE_EVENTS } from './exchange.events.ts';

export interface ExchangeDeps {
  guards: Guards;
  events: Pick<EventPublisher<typeof EXCHANGE_EVENTS>, 'user'>;
}
