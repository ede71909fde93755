// Request ids, security headers and request metrics: the conventions every response shares.
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../observability/metrics.ts';
import { unavailable } from './errors.ts';
import { randomRequestId } from './request-ids.ts';

export const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
} as const;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Honour a caller's x-request-id when it is a sane token; otherwise mint one. */
export function requestIdFor(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomRequestId();
}

export function registerHttpConventions(app: FastifyInstance, metrics: Metrics): void {
  // Once shutdown starts, the answers still in flight close their connection: otherwise a client's
  // (or load balancer's) idle keep-alive connections hold the server open until they time out.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // A request that arrives once shutdown has begun (on a connection kept alive) is refused at once,
  // in the contract's shape: Fastify's own return503OnClosing answer is not (decision 096).
  app.addHook('onRequest', (_request, _reply, done) => {
    if (closing) done(unavailable('The server is shutting down', { headers: { 'retry-after': '1' } }));
    else done();
  });
  // Callback-style hooks: they run on every request, and an async hook costs a promise each.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    reply.headers(SECURITY_HEADERS);
    reply.removeHeader('x-powered-by');
    if (closing) reply.header('connection', 'close');
    // Whatever an authenticated request answers (an error too) is about that user: never cache it.
    if (request.user) reply.header('cache-control', 'no-store');
    done(null, payload);
  });

  // Labelled children are looked up once per (method, route, status), not hashed on every request.
  const counters = new Map<string, { inc(): void }>();
  const timers = new Map<string, { observe(value: number): void }>();
  app.addHook('onResponse', (request, reply, done) => {
    // Route templates, not raw URLs, so label cardinality stays bounded.
    const route = request.routeOptions.url ?? 'unmatched';
    const status = String(reply.statusCode);
    const timerKey = `${request.method} ${route}`;
    const counterKey = `${timerKey} ${status}`;
    let counter = counters.get(counterKey);
    if (!counter) counters.set(counterKey, (counter = metrics.requestCounter(request.method, route, status)));
    let timer = timers.get(timerKey);
    if (!timer) timers.set(timerKey, (timer = metrics.duration.labels(request.method, route)));
    counter.inc();
    timer.observe(reply.elapsedTime / 1000);
    done();
  });
}
