// What the signals module uses from outside it: the bearer guards, the owner's account (two-factor for
// live hooks), the account-stream publisher narrowed to its event, and the orders module's create use
// case with what sizing an alert needs (the market's rules and price, the paper account's free
// balance); index.ts builds the order placer, the one door an alert's order goes through, from them.
import type { Guards } from '../../platform/auth/guards.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { ExchangeModule } from '../exchange/index.ts';
import type { OrdersModule } from '../orders/index.ts';
import type { PaperModule } from '../paper/index.ts';
import type { UsersModule } from '../users/index.ts';
import type { AlertSize, SignalMode } from './alerts.domain.ts';
import type { SIGNALS_EVENTS } from './signals.events.ts';

/** The order an alert asks for, as the hook and the alert say it. */
export interface SignalOrder {
  exchange: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'market' | 'limit';
  mode: SignalMode;
  size: AlertSize;
  price: string | null;
  hookId: string;
  /** The alert's identity (its id and time, or its receipt's when it sent no id); the order's idempotency key comes from it. */
  alertKey: string;
}

/**
 * Places the order through the same path as `POST /api/orders` (limits, halt, live safety), with
 * `source: "signal"` and the hook's id; answers the order's id and whether this call made it (false: the
 * order's key named one stored before), or throws the AppError that route would answer.
 */
export interface OrderPlacer {
  place(userId: string, order: SignalOrder): Promise<{ orderId: string; created: boolean }>;
  /** The order the door stored under the alert's key, if any (decision 1160). */
  placedFor(userId: string, hookId: string, alertKey: string): Promise<string | undefined>;
}

export interface SignalsDeps {
  guards: Guards;
  accounts: Pick<UsersModule['accounts'], 'findById'>;
  events: Pick<EventPublisher<typeof SIGNALS_EVENTS>, 'user'>;
  /** The orders module's create use case: the same door as POST /api/orders (decision 221). */
  orders: Pick<OrdersModule['service'], 'place' | 'keyed'>;
  /** A market's order rules and last price, to size an alert given in quote or percent. */
  markets: Pick<ExchangeModule['orders'], 'market' | 'lastPrice'>;
  /** What is free in the paper account, for a percent size. */
  paper: Pick<PaperModule, 'free'>;
}
