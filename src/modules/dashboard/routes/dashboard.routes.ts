import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AgentsAnswer, Overview } from '../overview.schemas.ts';
import { IntegrationsAnswer } from '../integrations.schemas.ts';
import type { AgentsService } from '../agents.service.ts';
import type { IntegrationsService } from '../integrations.service.ts';
import type { OverviewService } from '../overview.service.ts';
import { agentsWire, integrationsWire, overviewWire } from '../dashboard.wire.ts';

const tags = ['dashboard'];
const base = '/api/v1/dashboard';
/** Said on every dashboard route: the spec makes them public, so the deployment must guard them. */
const EXPOSURE =
  ' Unauthenticated, as in the contract: it shows flags, counts, times and cleaned error texts, never a secret, ' +
  'a credential-bearing URL or a dependency version. A deployment should still put /api/v1/dashboard behind its ' +
  'gateway (VPN, SSO proxy or IP allow-list).';

export function dashboardRoutes(services: {
  overview: OverviewService;
  agents: AgentsService;
  integrations: IntegrationsService;
}): FastifyPluginAsyncTypebox {
  return async function routes(app) {
    app.get(
      `${base}/overview`,
      {
        schema: {
          tags,
          operationId: 'getDashboardOverview',
          summary: 'Service health and platform figures',
          description:
            'Version and uptime of this instance; database and cache pinged (2 s timeout) with latency; users ' +
            'by status, active sessions, open tasks by status, webhook deliveries in the last 24 h, outbox ' +
            'backlog and dead letters; the last run of each scheduled job. A figure that cannot be read is ' +
            'null and `status` is `degraded`. One answer serves every caller for 5 s (`generated_at` says when it ' +
            'was computed).' +
            EXPOSURE,
          response: { 200: Overview },
        },
      },
      async () => overviewWire(await services.overview.overview()),
    );

    app.get(
      `${base}/agents`,
      {
        schema: {
          tags,
          operationId: 'getDashboardAgents',
          summary: 'Agents and their status',
          description:
            'Every agent that reported activity or is named on agent-filed tasks: last seen, actions in the ' +
            'last 24 h, open tasks, and a status: `active` when seen within 15 minutes, `idle` within 24 ' +
            'hours, `silent` when seen longer ago or never. One answer serves every caller for 5 s (`generated_at` ' +
            'says when it was computed).' +
            EXPOSURE,
          response: { 200: AgentsAnswer },
        },
      },
      async () => agentsWire(await services.agents.agents()),
    );

    app.get(
      `${base}/integrations`,
      {
        schema: {
          tags,
          operationId: 'getDashboardIntegrations',
          summary: 'Connection status of the external systems',
          description:
            'Per external system: `configured`, `reachable`, `last_success_at`, `last_error_at` and ' +
            'a cleaned `last_error`. Configured means: exchanges, at least one active stored credential ' +
            'for the venue; market data, a real source (not `simulated`); tracker, the `linear` ' +
            "backend; chat and mail, a webhook URL or SMTP URL set; webhooks, the provider's signing secret " +
            "set; Redis, REDIS_URL set. Reachability reuses the modules' own checks (venue health for " +
            "venues with credentials, Binance's `GET /api/v3/ping` for market data, tracker health, an " +
            'SMTP connect and greeting that sends nothing, Redis ping), each run at most once a minute per ' +
            'instance and bounded by 3 s; chat and webhooks are not probed (`reachable` null), their last ' +
            'success and error come from deliveries. One answer serves every caller for 5 s (`generated_at` says ' +
            'when it was computed).' +
            EXPOSURE,
          response: { 200: IntegrationsAnswer },
        },
      },
      async () => integrationsWire(await services.integrations.integrations()),
    );
  };
}
