// What the dashboard reads, as narrow slices of what the other modules' index.ts return. app.ts
// passes them in; the dashboard never touches another module's tables or repositories.
import type { AdminModule } from '../admin/index.ts';
import type { AuthModule } from '../auth/index.ts';
import type { CommandCenterModule } from '../command-center/index.ts';
import type { ExchangeModule } from '../exchange/index.ts';
import type { MarketModule } from '../market/index.ts';
import type { NotificationsModule } from '../notifications/index.ts';
import type { TrackerModule } from '../tracker/index.ts';
import type { WebhooksModule } from '../webhooks/index.ts';
import type { JobRunsPort } from './jobs.port.ts';

export interface DashboardDeps {
  /** The service version (SERVICE_VERSION). */
  version: string;
  users: Pick<AdminModule['users'], 'countsByStatus'>;
  sessions: Pick<AuthModule['service'], 'countActiveSessions'>;
  tasks: Pick<CommandCenterModule['tasks'], 'countsByStatus'>;
  agents: Pick<CommandCenterModule['agents'], 'summaries'>;
  webhooks: Pick<WebhooksModule['service'], 'deliveryStats' | 'providerStatus'>;
  notifications: Pick<NotificationsModule, 'status' | 'checkMailServer'>;
  market: Pick<MarketModule, 'status' | 'probe'>;
  tracker: Pick<TrackerModule['service'], 'health'>;
  exchanges: Pick<ExchangeModule['venueStatus'], 'venues' | 'credentialStats' | 'ready' | 'health' | 'budget'>;
  /** The jobs module's last runs. Required: a dashboard without it would show "no runs" as if none ran. */
  jobs: JobRunsPort;
}
