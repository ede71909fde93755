// What the signals module uses from outside it: the bearer guards, the owner's account (two-factor for
// live hooks), the account-stream publisher narrowed to its event, and the order placer: the one door
// an alert's order goes through, the orders module's create use case (null until trading is wired:
// the alert route then answers 503). app.ts passes them in.
import type { Guards } from '../../platform/auth/guards.ts';
import type { EventPublisher } from '../streams/index.ts';
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
  /** The alert's identity (its id and time), null when it sent no id; the order's idempotency comes from it. */
  alertKey: string | null;
}

/**
 * Places the order through the same path as `POST /api/orders` (limits, halt, live safety), with
 * `source: "signal"` and the hook's id; answers the order's id, or throws the AppError that route
 * would answer.
 */
export interface OrderPlacer {
  place(userId: string, order: SignalOrder): Promise<{ orderId: string }>;
}

export interface SignalsDeps {
  guards: Guards;
  accounts: Pick<UsersModule['accounts'], 'findById'>;
  events: Pick<EventPublisher<typeof SIGNALS_EVENTS>, 'user'>;
  placer: OrderPlacer | null;
}
