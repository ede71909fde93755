// Every route that takes a bearer token says, where it is defined, what an API token needs to call
// it, or that no token may (`config.tokenScope`, decision 235). A route that says nothing is refused
// to tokens, quietly: this file makes the omission loud. A route takes a bearer token when its
// security names `bearerAuth` or a bearer guard runs before it. Routes without one (public, the
// webhooks' signatures, the job secret, the console's cookie) need no declaration: the guard never
// runs there.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { after, before, describe, it } from 'node:test';
import { API_TOKEN_SCOPES } from '../../../src/platform/auth/scopes.ts';
import { bearerSecurity } from '../../../src/platform/http/schemas.ts';
import type { RouteEntry } from '../../helpers/route-catalog.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';

/** The routes (method and template) that take a bearer token and do not say what a token needs. */
function undeclared(catalog: readonly RouteEntry[], app: FastifyInstance): string[] {
  const { requireUser, requireAdmin, requireStepUp, requireAdminStepUp, identify } = app.guards;
  const bearerGuards: unknown[] = [requireUser, requireAdmin, requireStepUp, requireAdminStepUp, identify];
  return catalog
    .filter((route) => route.method !== 'HEAD')
    .filter((route) => {
      const security = JSON.stringify((route.schema as { security?: unknown } | undefined)?.security ?? []);
      return security.includes('"bearerAuth"') || route.onRequest.some((hook) => bearerGuards.includes(hook));
    })
    .filter((route) => route.config?.tokenScope === undefined)
    .map((route) => `${route.method} ${route.url}`);
}

describe('token scopes declared on the routes', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      // Routes of this test only, under /test/: one that says nothing, one of each declaration, and
      // one that takes no bearer token.
      routes: async (app) => {
        const onRequest = app.guards.requireUser;
        const schema = { hide: true, security: bearerSecurity };
        const ok = async () => ({ ok: true });
        app.get('/test/scopes/undeclared', { onRequest, schema }, ok);
        app.post('/test/scopes/identified', { onRequest: app.guards.identify, schema: { hide: true } }, ok);
        app.get('/test/scopes/market', { onRequest, config: { tokenScope: 'market:read' }, schema }, ok);
        app.get('/test/scopes/refused', { onRequest, config: { tokenScope: 'refused' }, schema }, ok);
        app.get('/test/scopes/public', { schema: { hide: true } }, ok);
      },
    });
  });
  after(async () => {
    await t.close();
  });

  it("is said by every route of the app's that takes a bearer token", () => {
    const own = t.routeCatalog.filter((route) => !route.url.startsWith('/test/'));
    assert.deepEqual(undeclared(own, t.app), []);
    const declared = own.filter((route) => route.config?.tokenScope !== undefined);
    assert.ok(declared.length >= 100, `${declared.length} routes declare a token scope`);
    for (const route of declared) {
      const scope = route.config!.tokenScope!;
      assert.ok(
        scope === 'refused' || (API_TOKEN_SCOPES as readonly string[]).includes(scope),
        `${route.method} ${route.url}: ${scope}`,
      );
    }
  });

  it('finds a bearer route that says nothing, by its security or by its guard', () => {
    const mine = t.routeCatalog.filter((route) => route.url.startsWith('/test/scopes/'));
    assert.deepEqual(undeclared(mine, t.app), ['GET /test/scopes/undeclared', 'POST /test/scopes/identified']);
  });

  it('is what the guard enforces, and refuses tokens where a route says nothing', async () => {
    const user = await signIn(t.app, t.database);
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/auth/tokens',
      headers: user.headers,
      payload: { name: 'route scopes', scopes: ['market:read'] },
    });
    assert.equal(made.statusCode, 201, made.body);
    const holding = { authorization: `Bearer ${made.json<{ token: string }>().token}` };
    const get = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers });

    assert.equal((await get('/test/scopes/market', holding)).statusCode, 200);
    assert.equal((await get('/test/scopes/market', user.headers)).statusCode, 200, 'a session needs no scope');
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/auth/tokens',
      headers: user.headers,
      payload: { name: 'route scopes, other', scopes: ['tracker:read'] },
    });
    const lacking = await get('/test/scopes/market', {
      authorization: `Bearer ${other.json<{ token: string }>().token}`,
    });
    assert.equal(lacking.statusCode, 403);
    assert.equal(lacking.json().detail, 'This API token lacks the scope market:read');
    for (const url of ['/test/scopes/refused', '/test/scopes/undeclared']) {
      const refused = await get(url, holding);
      assert.equal(refused.statusCode, 403, url);
      assert.match(refused.json().detail, /^API tokens cannot be used for this operation/, url);
      assert.equal((await get(url, user.headers)).statusCode, 200, `${url} with a session`);
    }
  });
});
