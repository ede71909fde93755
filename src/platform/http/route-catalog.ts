// Every route the application registered, as registered: the OpenAPI test checks the document
// against it, so a route can never be missing from `/openapi.json` unnoticed.
import type { FastifyInstance, RouteOptions } from 'fastify';

export interface RouteEntry {
  method: string;
  /** Fastify's template, e.g. `/api/admin/users/:user_id`. */
  url: string;
  /** Left out of the OpenAPI document on purpose (`schema.hide`). */
  hidden: boolean;
  schema: Record<string, unknown> | undefined;
  /** The route's onRequest hooks, where the bearer guards sit. */
  onRequest: readonly unknown[];
}

declare module 'fastify' {
  interface FastifyInstance {
    readonly routeCatalog: readonly RouteEntry[];
  }
}

export function registerRouteCatalog(app: FastifyInstance): void {
  const entries: RouteEntry[] = [];
  app.decorate('routeCatalog', entries);
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as Record<string, unknown> | undefined;
    const onRequest = route.onRequest === undefined ? [] : [route.onRequest].flat();
    for (const method of [route.method].flat()) {
      entries.push({ method: String(method).toUpperCase(), url: route.url, hidden: schema?.hide === true, schema, onRequest });
    }
  });
}
