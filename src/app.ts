// Builds the HTTP application from a Platform: conventions first, then the modules, one line each.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createMicroCache } from './platform/http/micro-cache.ts';
import { DOCS_CSP, DOCS_THEME } from './platform/http/docs-ui.ts';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './platform/http/error-handler.ts';
import { registerHttpConventions, requestIdFor } from './platform/http/http-conventions.ts';
import { lazySerializerFactory } from './platform/http/lazy-serializers.ts';
import { API_DESCRIPTION, API_TAGS, API_TITLE } from './api-document.ts';
import { finishDocument, securitySchemesOf, type OpenApiDocument } from './platform/http/openapi.ts';
import { createHttpServer } from './platform/http/server.ts';
import { createSseRegistry, type SseRegistry } from './platform/http/sse.ts';
import { registerValidation } from './platform/http/validation.ts';
import { healthRoutes } from './platform/observability/health.routes.ts';
import { documentGuard } from './platform/auth/guards.ts';
import { modulesOf, type AppModule } from './platform/module.ts';
import type { Platform } from './platform/platform.ts';
import { PROJECT_ROOT } from './platform/project-root.ts';
import { createAdminModule } from './modules/admin/index.ts';
import { createAuthModule } from './modules/auth/index.ts';
import { createExchangeModule, type ExchangeOptions } from './modules/exchange/index.ts';
import { createNotificationsModule } from './modules/notifications/index.ts';
import { createTrackerModule, type AgentFilingTimes } from './modules/tracker/index.ts';
import { createCommandCenterModule } from './modules/command-center/index.ts';
import { createProviderKeysModule } from './modules/provider-keys/index.ts';
import { createRagSettingsModule } from './modules/rag-settings/index.ts';
import { createWebhooksModule } from './modules/webhooks/index.ts';
import { createMarketModule } from './modules/market/index.ts';
import { createPaperModule, type RestingWatchTimes } from './modules/paper/index.ts';
import { createStrategiesModule } from './modules/strategies/index.ts';
import { createUsersModule } from './modules/users/index.ts';
import type { TimerFactory } from './modules/jobs/scheduler.ts';
import { createJobsModule } from './modules/jobs/index.ts';
import { createDashboardModule } from './modules/dashboard/index.ts';
import { createStreamsModule } from './modules/streams/index.ts';
import { createPortfolioModule } from './modules/portfolio/index.ts';
import { createConsoleModule } from './modules/console/index.ts';
import { createTradingModule, type TradingOptions } from './modules/trading/index.ts';
import { createOrdersModule } from './modules/orders/index.ts';
import { createSignalsModule } from './modules/signals/index.ts';
import { JOB_NAMES, STREAM_EVENTS } from './declarations.ts';

const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
export const SERVICE_VERSION = pkg.version;

/** Where the interactive docs live; their static files are under `${DOCS_PREFIX}/static/`. */
const DOCS_PREFIX = '/docs';

export interface ModuleOptions {
  /** The in-process scheduler's timers (tests drive them). */
  jobTimers?: TimerFactory;
  /** The period of the lost-run sweep (tests shorten it; decision 1000). */
  lostRunSweepMs?: number;
  /** The paper resting watch's periods (tests shorten them). */
  paperWatch?: RestingWatchTimes;
  /** The venue library's import (tests give one as slow as a busy machine's; decision 700). */
  loadCcxt?: ExchangeOptions['loadCcxt'];
  /** The halt listeners' bound (tests shorten it; decision 801). */
  haltListenerTimeoutMs?: TradingOptions['haltListenerTimeoutMs'];
  /** An agent filing's lock and bound (tests shorten them; decision 988). */
  agentFiling?: AgentFilingTimes;
}

/**
 * Every module, in dependency order, each given the narrow ports of those before it. Notifications
 * follows the account events, so it comes after streams; it registers the outbox handlers here, before
 * main.ts starts the worker.
 */
export function createModules(platform: Platform, options: ModuleOptions = {}) {
  const users = createUsersModule(platform);
  const { guards } = users;
  // Every open Server-Sent Events stream of this instance, whichever module serves it.
  const sse = createSseRegistry(platform.config.streams, platform.logger);
  const streams = createStreamsModule(platform, { guards, users, sse, events: STREAM_EVENTS });
  const events = streams.publisher;
  const notifications = createNotificationsModule(platform, {
    guards,
    accounts: users.accounts,
    accountEvents: streams,
  });
  const { messages } = notifications;
  const auth = createAuthModule(platform, { users, messages });
  const exchange = createExchangeModule(platform, { guards, events }, { loadCcxt: options.loadCcxt });
  const webhooks = createWebhooksModule(platform, { users, messages, events });
  const admin = createAdminModule(platform, {
    users,
    trading: exchange.tradingSummary,
    revenueByCurrency: webhooks.revenueByCurrency,
    messages,
  });
  const tracker = createTrackerModule(platform, { users, messages }, { agentFiling: options.agentFiling });
  const commandCenter = createCommandCenterModule(platform, { guards });
  const ragSettings = createRagSettingsModule(platform, { guards });
  const providerKeys = createProviderKeysModule(platform, {
    guards,
    exchangeCredentials: exchange.credentials,
    twoFactorSecrets: auth.twoFactor,
    messages,
  });
  const market = createMarketModule(platform, { sse, venueAccess: exchange.venueAccess });
  const strategies = createStrategiesModule(platform, {
    guards,
    intel: commandCenter.intel,
    candles: market.candles,
    platformLimits: admin.getPlatformLimits,
  });
  const trading = createTradingModule(
    platform,
    { guards, events },
    { haltListenerTimeoutMs: options.haltListenerTimeoutMs },
  );
  const paper = createPaperModule(platform, { guards, market, fees: exchange.tradingFees }, options.paperWatch);
  const orders = createOrdersModule(platform, {
    guards,
    exchange,
    events,
    controls: trading.controls,
    paper,
    strategies: strategies.userStrategies,
  });
  const signals = createSignalsModule(platform, {
    guards,
    accounts: users.accounts,
    events,
    orders: orders.service,
    markets: exchange.orders,
    paper,
  });
  // A provider's first link to an address nobody verified claims the account (decisions 734 and 790):
  // besides its ways in, what the registrant set up that acts or reports for it goes too.
  users.onClaimed(exchange.credentials.removeAllOnClaim);
  users.onClaimed(signals.removeAllOnClaim);
  users.onClaimed(notifications.resetOnClaim);
  const portfolio = createPortfolioModule(platform, { guards, source: exchange.portfolio, quotes: market.quotes });
  // The list of modules so far; each binds its own jobs, and the jobs module runs what they bound.
  const owners = {
    users,
    sse,
    streams,
    notifications,
    auth,
    exchange,
    webhooks,
    admin,
    tracker,
    commandCenter,
    ragSettings,
    providerKeys,
    market,
    strategies,
    trading,
    paper,
    orders,
    signals,
    portfolio,
  };
  const bound = modulesOf(owners).flatMap((module) => module.jobs ?? []);
  const jobs = createJobsModule(
    platform,
    { jobs: bound, names: JOB_NAMES, events },
    {
      timers: options.jobTimers,
      lostRunSweepMs: options.lostRunSweepMs,
    },
  );
  const dashboard = createDashboardModule(platform, {
    version: SERVICE_VERSION,
    users: admin.users,
    sessions: auth.service,
    tasks: commandCenter.tasks,
    agents: commandCenter.agents,
    webhooks: webhooks.service,
    notifications,
    market,
    tracker: tracker.service,
    exchanges: exchange.venueStatus,
    jobs,
  });
  const consoleUi = createConsoleModule(platform, { guards, auth, jobs });
  // The one list of modules: buildApp registers their routes and runs their hooks in this order.
  return { ...owners, jobs, dashboard, consoleUi } satisfies Record<string, AppModule | SseRegistry>;
}

export type Modules = ReturnType<typeof createModules>;

interface BuildOptions {
  /** Called for every route as it is registered (the OpenAPI test builds its catalog of routes so). */
  observeRoute?: (route: RouteOptions) => void;
}

export async function buildApp(
  platform: Platform,
  modules: Modules = createModules(platform),
  options: BuildOptions = {},
): Promise<FastifyInstance> {
  const { config, logger } = platform;
  const microCache = createMicroCache();
  const servedCounters = new Map<string, { inc(): void }>();
  microCache.onServed = (route) => {
    let counter = servedCounters.get(route);
    if (!counter) servedCounters.set(route, (counter = platform.metrics.requestCounter('GET', route, '200')));
    counter.inc();
  };
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: config.server.bodyLimit,
    // request.ip is the forwarded client only behind the proxies TRUST_PROXY names (decision 003).
    trustProxy: config.server.trustProxy.length > 0 ? [...config.server.trustProxy] : false,
    genReqId: requestIdFor,
    // Requests arriving during shutdown get a 503 from http-conventions, in the contract's shape.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // The router never refuses a long path parameter (it would answer 414 with no `loc`): Node's
    // 16 KiB header limit bounds the URL, and validation bounds each parameter (decision 096).
    routerOptions: { maxParamLength: Number.MAX_SAFE_INTEGER },
    frameworkErrors,
    clientErrorHandler,
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } },
    // Request loggers inherit the root's redaction and level; no per-route serializers are used.
    childLoggerFactory: (parent, bindings) => parent.child(bindings),
    serverFactory: (handler) =>
      createHttpServer(handler, (request, response) => microCache.serve(request, response), {
        headersTimeoutMs: config.server.headersTimeoutMs,
        requestTimeoutMs: config.server.requestTimeoutMs,
      }),
  }) as unknown as FastifyInstance;

  if (options.observeRoute) app.addHook('onRoute', options.observeRoute);
  registerValidation(app);
  registerErrorHandling(app, { filesUnder: `${DOCS_PREFIX}/static/` });
  registerHttpConventions(app, platform.metrics);
  microCache.register(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: API_TITLE,
        version: SERVICE_VERSION,
        description: API_DESCRIPTION,
        license: { name: 'Proprietary' },
      },
      servers: [{ url: '/', description: 'The server answering this document' }],
      tags: API_TAGS,
      components: { securitySchemes: securitySchemesOf(modules.webhooks.securitySchemes) },
    },
    transformObject: (document) =>
      'openapiObject' in document ? finishDocument(document.openapiObject as OpenApiDocument) : document.swaggerObject,
  });
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    theme: { title: API_TITLE, ...DOCS_THEME },
    uiConfig: { urls: [{ url: '/openapi.json', name: API_TITLE }], persistAuthorization: false },
    staticCSP: DOCS_CSP,
  });
  // @fastify/swagger builds the document once and keeps it; its text is kept too, or every request (anyone
  // may ask) would spend tens of milliseconds of the event loop in JSON.stringify on its 0.6 MB (decision 470).
  let documentText: string | undefined;
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send((documentText ??= JSON.stringify(app.swagger()))),
  );
  await app.register(healthRoutes({ platform }));

  const { users, sse } = modules;
  const all = modulesOf(modules);
  app.decorate('guards', users.guards);
  app.addHook('onRoute', (route) => documentGuard(route, users.guards));
  for (const module of all) if (module.routes) await app.register(module.routes);
  // Each phase runs the modules' hooks in the list's order. `listening` work (the live price stream,
  // the in-process scheduler) never runs under inject(); `closed` waits for background work (runs in
  // progress), so its hook is registered before the one that closes the database.
  app.addHook('onListen', async () => {
    for (const module of all) module.hooks?.listening?.();
  });
  app.addHook('onClose', async () => {
    for (const module of all) await module.hooks?.closed?.();
  });
  app.addHook('onReady', async () => {
    for (const module of all) await module.hooks?.ready?.();
  });
  // Streams are open requests: they are ended (event `end`, then the response) before the server
  // waits for in-flight requests, or it would wait for them until the force-exit.
  app.addHook('preClose', async () => {
    await sse.close();
    for (const module of all) await module.hooks?.closing?.();
  });
  app.addHook('onClose', async () => {
    await platform.close();
  });
  return app;
}
