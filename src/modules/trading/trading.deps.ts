// What the trading module uses from outside it: the bearer guards of its routes and the account-stream
// publisher, narrowed to the event it declares. app.ts passes them in.
import type { Guards } from '../../platform/auth/guards.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { TRADING_EVENTS } from './trading.events.ts';

export interface TradingDeps {
  guards: Guards;
  events: Pick<EventPublisher<typeof TRADING_EVENTS>, 'user'>;
}
