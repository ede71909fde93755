// What the orders module uses from other modules: the bearer guards, the exchange module's order port
// (live venue, market limits, credentials, fills as trades), the streams publisher narrowed to its
// events, the risk controls (limits, halt), the paper engine and users' strategies. app.ts passes them in.
import type { Guards } from '../../platform/auth/guards.ts';
import type { ExchangeModule } from '../exchange/index.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { TradingModule } from '../trading/index.ts';
import type { PaperModule } from '../paper/index.ts';
import type { StrategiesModule } from '../strategies/index.ts';
import type { ORDERS_EVENTS } from './orders.events.ts';

export interface OrdersDeps {
  guards: Guards;
  exchange: {
    orders: Pick<
      ExchangeModule['orders'],
      'liveVenue' | 'market' | 'lastPrice' | 'credentialJoin' | 'recordFills' | 'ready'
    >;
  };
  events: Pick<EventPublisher<typeof ORDERS_EVENTS>, 'userEach'>;
  /** The risk limits and the halt: checked before any send; a halt cancels through this module. */
  controls: Pick<TradingModule['controls'], 'admit' | 'status' | 'onHalt' | 'noteRealizedLoss'>;
  /**
   * The paper engine: its venue, its notices of orders changed outside a call (a resting fill), and,
   * offline, the simulated market a paper order is checked against.
   */
  paper: Pick<PaperModule, 'venue' | 'onOrderChanged' | 'offlineMarket'>;
  /** Users' strategies: whose a strategy is, and its figures refreshed from a paper order's fills. */
  strategies: Pick<StrategiesModule['userStrategies'], 'isOwnedBy' | 'recordFills'>;
}
