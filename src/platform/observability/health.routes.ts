// Liveness, readiness and Prometheus metrics: for orchestrators and scrapers, outside the contract.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Platform } from '../platform.ts';
import { probeWithin } from '../timeouts.ts';

/** A dependency that does not answer within this is as good as down for a readiness probe. */
const PROBE_TIMEOUT_MS = 2_000;

async function probe(check: () => Promise<number>): Promise<{ status: 'up'; latency_ms: number } | { status: 'down' }> {
  const outcome = await probeWithin(check, PROBE_TIMEOUT_MS);
  return outcome.up ? { status: 'up', latency_ms: outcome.latencyMs } : { status: 'down' };
}

export function healthRoutes(deps: {
  platform: Pick<Platform, 'database' | 'cache' | 'metrics'>;
}): FastifyPluginAsyncTypebox {
  const { platform } = deps;
  return async function routes(app) {
    app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
      const database = await probe(() => platform.database.ping());
      if (database.status === 'down') return reply.code(503).send({ detail: 'Database unavailable' });
      // Without Redis the instance still serves, from process memory (decision 102): it stays in
      // rotation, reported as degraded, since every instance on that Redis is in the same state.
      if (platform.cache.kind === 'redis') {
        const cache = await probe(() => platform.cache.ping());
        if (cache.status === 'down')
          return { status: 'degraded', database, cache: { status: 'down', fallback: 'process memory' } };
        return { status: 'ready', database, cache };
      }
      return { status: 'ready', database };
    });

    app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
      const body = await platform.metrics.registry.metrics();
      return reply.type(platform.metrics.registry.contentType).send(body);
    });
  };
}
