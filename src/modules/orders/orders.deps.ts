// What the orders module uses from other modules: the bearer guards, the exchange module's order port
// (live venue, market limits, credentials, fills as trades), the streams publisher narrowed to its
// events, the risk controls (limits, halt), and whose a strategy is. app.ts passes them in.
import type { Guards } from '../../platform/auth/guards.ts';
import type { ExchangeModule } from '../exchange/index.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { TradingModule } from '../trading/index.ts';
import type { ORDERS_EVENTS } from './orders.events.ts';

export interface OrdersDeps {
  guards: Guards;
  exchange: { orders: Pick<ExchangeModule['orders'], 'liveVenue' | 'market' | 'lastPrice' | 'credentialFor' | 'recordFills'> };
  events: Pick<EventPublisher<typeof ORDERS_EVENTS>, 'user'>;
  /** The risk limits and the halt: checked before any send; a halt cancels through this module. */
  controls: Pick<TradingModule['controls'], 'check' | 'status' | 'onHalt' | 'noteRealizedLoss'>;
  /** The owner of a strategy, or null when there is none with this id. */
  strategyOwner(strategyId: string): Promise<string | null>;
}
