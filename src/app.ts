// Builds the HTTP application from a Platform: conventions first, then the modules, one line each.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createMicroCache } from './platform/http/micro-cache.ts';
import { registerErrorHandling } from './platform/http/error-handler.ts';
import { registerHttpConventions, requestIdFor } from './platform/http/http-conventions.ts';
import { optionalWhenDefaulted, type OpenApiDocument } from './platform/http/openapi.ts';
import { registerValidation } from './platform/http/validation.ts';
import { healthRoutes } from './platform/observability/health.routes.ts';
import type { Platform } from './platform/platform.ts';
import { createAdminModule } from './modules/admin/index.ts';
import { createAuthModule } from './modules/auth/index.ts';
import { createExchangeModule } from './modules/exchange/index.ts';
import { createNotificationsModule } from './modules/notifications/index.ts';
import { createTrackerModule } from './modules/tracker/index.ts';
import { createCommandCenterModule } from './modules/command-center/index.ts';
import { createProviderKeysModule } from './modules/provider-keys/index.ts';
import { createRagSettingsModule } from './modules/rag-settings/index.ts';
import { createWebhooksModule } from './modules/webhooks/index.ts';
import { createMarketModule } from './modules/market/index.ts';
import { createStrategiesModule } from './modules/strategies/index.ts';
import { createJobsModule } from './modules/jobs/index.ts';
import { createDashboardModule } from './modules/dashboard/index.ts';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
export const SERVICE_VERSION = pkg.version;

export async function buildApp(platform: Platform): Promise<FastifyInstance> {
  const { config, logger } = platform;
  const microCache = createMicroCache();
  const servedCounters = new Map<string, { inc(): void }>();
  microCache.onServed = (route) => {
    let counter = servedCounters.get(route);
    if (!counter) servedCounters.set(route, (counter = platform.metrics.requests.labels('GET', route, '200')));
    counter.inc();
  };
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: config.server.bodyLimit,
    genReqId: requestIdFor,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Request loggers inherit the root's redaction and level; no per-route serializers are used.
    childLoggerFactory: (parent, bindings) => parent.child(bindings),
    serverFactory: (handler) => createServer((request, response) => microCache.serve(request, response) || handler(request, response)),
  }) as unknown as FastifyInstance;

  registerValidation(app);
  registerErrorHandling(app);
  registerHttpConventions(app, platform.metrics);
  microCache.register(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Trading Platform API',
        version: SERVICE_VERSION,
        description:
          'Administration, exchange connectivity, market data, issue tracker, scheduled jobs, dashboard and inbound webhooks of the trading platform.',
      },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
    },
    transformObject: (document) =>
      'openapiObject' in document ? optionalWhenDefaulted(document.openapiObject as OpenApiDocument) : document.swaggerObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(healthRoutes(platform));

  // Modules, in dependency order. Notifications registers the outbox handlers before main.ts starts the worker.
  const notifications = createNotificationsModule(platform);
  const auth = createAuthModule(platform);
  await app.register(auth.routes);
  const exchange = createExchangeModule(platform);
  await app.register(exchange.routes);
  const admin = createAdminModule(platform, { trading: exchange.tradingSummary });
  await app.register(admin.routes);
  const tracker = createTrackerModule(platform);
  await app.register(tracker.routes);
  const commandCenter = createCommandCenterModule(platform);
  await app.register(commandCenter.routes);
  const ragSettings = createRagSettingsModule(platform);
  await app.register(ragSettings.routes);
  const providerKeys = createProviderKeysModule(platform);
  await app.register(providerKeys.routes);
  const webhooks = createWebhooksModule(platform);
  await app.register(webhooks.routes);
  const market = createMarketModule(platform);
  await app.register(market.routes);
  // The live price stream runs only while the server listens (never under inject()).
  app.addHook('onListen', async () => market.start());
  app.addHook('onClose', async () => market.stop());
  const strategies = createStrategiesModule(platform);
  await app.register(strategies.routes);
  const jobs = createJobsModule(platform, { auth, admin, providerKeys, exchange, commandCenter, market, strategies });
  await app.register(jobs.routes);
  const dashboard = createDashboardModule(platform, { version: SERVICE_VERSION, users: admin.users, sessions: auth.service, tasks: commandCenter.tasks, agents: commandCenter.agents, webhooks: webhooks.service, notifications, market, tracker: tracker.service, exchanges: exchange.venueStatus, jobs });
  await app.register(dashboard.routes);
  // The in-process scheduler (SCHEDULER=internal) runs only while the server listens; stopping it
  // waits for runs in progress, so this hook is registered before the one that closes the database.
  app.addHook('onListen', async () => jobs.start());
  app.addHook('onClose', async () => jobs.stop());

  app.addHook('onReady', async () => {
    await auth.bootstrapAdmin();
    await tracker.init();
  });
  app.addHook('onClose', async () => {
    await platform.close();
  });
  return app;
}
