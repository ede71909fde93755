// What the admin module uses from other modules, as narrow slices of what their index.ts return.
// app.ts passes them in; the admin never touches another module's tables or repositories.
import type { NotificationsModule } from '../notifications/index.ts';
import type { UsersModule } from '../users/index.ts';
import type { TradingSummaryPort } from './trading-summary.port.ts';

export interface AdminDeps {
  users: Pick<UsersModule, 'guards' | 'accounts'>;
  /** Trade counts and balances per user, from the exchange module. */
  trading: TradingSummaryPort;
  /** Sums of the payments ledger per currency, from the webhooks module. */
  revenueByCurrency: () => Promise<Map<string, string>>;
  messages: Pick<NotificationsModule['messages'], 'mail'>;
}
