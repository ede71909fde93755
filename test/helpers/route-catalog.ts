// Every route the application registered, as registered: the OpenAPI test checks the document
// against it, so a route can never be missing from `/openapi.json` unnoticed.
import type { RouteOptions } from 'fastify';

export interface RouteEntry {
  method: string;
  /** Fastify's template, e.g. `/api/admin/users/:user_id`. */
  url: string;
  /** Left out of the OpenAPI document on purpose (`schema.hide`). */
  hidden: boolean;
  schema: Record<string, unknown> | undefined;
  /** The route's onRequest hooks, where the bearer guards sit. */
  onRequest: readonly unknown[];
  /** The route's `config`, where it declares what an API token needs (`tokenScope`). */
  config: RouteOptions['config'];
}

/** A catalog, and the observer that fills it as buildApp registers routes. */
export function routeCatalog(): { entries: RouteEntry[]; observe: (route: RouteOptions) => void } {
  const entries: RouteEntry[] = [];
  return {
    entries,
    observe(route) {
      const schema = route.schema as Record<string, unknown> | undefined;
      const onRequest = route.onRequest === undefined ? [] : [route.onRequest].flat();
      for (const method of [route.method].flat()) {
        entries.push({
          method: String(method).toUpperCase(),
          url: route.url,
          hidden: schema?.hide === true,
          schema,
          onRequest,
          config: route.config,
        });
      }
    },
  };
}
