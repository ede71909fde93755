// What API tokens may do is said by each route, where it is defined (decision 235, amending 144):
// `config: { tokenScope: 'account:read' }`, or `tokenScope: 'refused'` when no token may call it. The
// bearer guard enforces it and documentGuard writes it into the OpenAPI document as `x-scopes`, both
// from the route's own options, so a new route cannot inherit a scope from a URL it happens to match.
// A route that takes a bearer token and says nothing is refused to tokens, and fails
// test/platform/http/route-scopes.test.ts.
import type { ApiTokenScope } from './scopes.ts';

/** A route's word on API tokens: the scope a token needs to call it, or `refused`: no token may. */
export type TokenScope = ApiTokenScope | 'refused';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * What an API token needs to call this route (decision 235). Every route that takes a bearer
     * token says it; `refused` for what needs a session (signing in, passwords, two-factor, tokens).
     */
    tokenScope?: TokenScope;
  }
}

/** The scope an API token needs for a route with this config; undefined when no token may call it. */
export function tokenScopeOf(config: { tokenScope?: TokenScope } | undefined): ApiTokenScope | undefined {
  const declared = config?.tokenScope;
  return declared === undefined || declared === 'refused' ? undefined : declared;
}
