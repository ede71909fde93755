// What the jobs use from other modules, as narrow slices of what their index.ts return (or the
// ports the jobs declare beside their functions). app.ts passes them in.
import type { AdminModule } from '../admin/index.ts';
import type { AuthModule } from '../auth/index.ts';
import type { MarketModule } from '../market/index.ts';
import type { NotificationsModule } from '../notifications/index.ts';
import type { StrategiesService } from '../strategies/index.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { JOBS_EVENTS } from './jobs.events.ts';
import type { RotateApiKeysDeps } from './jobs/rotate-api-keys.job.ts';
import type { StrategyAutopilotDeps } from './jobs/strategy-autopilot.job.ts';
import type { SyncAccountsDeps } from './jobs/sync-accounts.job.ts';
import type { ReconcileOrdersDeps } from './jobs/reconcile-orders.job.ts';

/** The services the jobs use, narrowed to what they call. */
export interface JobsDeps {
  auth: {
    service: Pick<AuthModule['service'], 'deleteStaleSessions' | 'deleteDeadTokens'>;
    twoFactor: Pick<AuthModule['twoFactor'], 'reencryptAll'>;
  };
  admin: { users: Pick<AdminModule['users'], 'endExpiredGracePeriods'> } & Pick<AdminModule, 'getPlatformLimits'>;
  providerKeys: { service: RotateApiKeysDeps['providerKeys'] };
  exchange: { credentials: RotateApiKeysDeps['exchangeCredentials']; accounts: SyncAccountsDeps['accounts'] };
  commandCenter: { intel: StrategyAutopilotDeps['intel'] };
  market: Pick<MarketModule, 'candles'>;
  strategies: { service: Pick<StrategiesService, 'evaluatePaper'> };
  messages: Pick<NotificationsModule['messages'], 'chat'>;
  events: Pick<EventPublisher<typeof JOBS_EVENTS>, 'admins'>;
  streams: { prune(): Promise<number> };
  orders: ReconcileOrdersDeps['orders'];
}
