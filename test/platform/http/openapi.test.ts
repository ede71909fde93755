// The OpenAPI document is generated from the route schemas; this checks it against every route the
// app registered, whichever module added it, so a route can never be missing from the document.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validate } from '@readme/openapi-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import { Type } from 'typebox';
import type { RouteEntry } from '../../helpers/route-catalog.ts';
import { bearerSecurity, errorResponses } from '../../../src/platform/http/schemas.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

type Document = OpenAPIV3_1.Document;
type Operation = OpenAPIV3_1.OperationObject;

/** Fastify's `/a/:id` (with an optional regex) is OpenAPI's `/a/{id}`. */
function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, '{$1}');
}

/** The routes that must be documented: not hidden, and not the HEAD twin Fastify adds to each GET. */
function documentedRoutes(catalog: readonly RouteEntry[]): RouteEntry[] {
  const gets = new Set(catalog.filter((r) => r.method === 'GET').map((r) => r.url));
  return catalog.filter((route) => !route.hidden && !(route.method === 'HEAD' && gets.has(route.url)));
}

function operationOf(document: Document, route: RouteEntry): Operation | undefined {
  const item = document.paths?.[openApiPath(route.url)] as Record<string, Operation> | undefined;
  return item?.[route.method.toLowerCase()];
}

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: Document;
  before(async () => {
    t = await buildTestApp({
      routes: async (app) => {
        // A route added the way any module adds one: it must show up without anyone listing it.
        app.get(
          '/api/v1/probe/:probe_id',
          {
            schema: {
              tags: ['probe'],
              summary: 'Probe',
              params: Type.Object({ probe_id: Type.String({ description: 'Probe id.' }) }),
              response: {
                200: Type.Object({ ok: Type.Boolean({ description: 'Always true.' }) }),
                ...errorResponses(404),
              },
            },
          },
          async () => ({ ok: true }),
        );
      },
    });
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    document = response.json();
  });
  after(async () => {
    await t.close();
  });

  it('is OpenAPI 3.1 and passes a real validator', async () => {
    assert.equal(document.openapi, '3.1.0');
    const result = await validate(structuredClone(document) as never);
    assert.ok(result.valid, `invalid document: ${JSON.stringify(result)}`);
  });

  it('lists every registered route that is not hidden, with its method', () => {
    const routes = documentedRoutes(t.routeCatalog);
    assert.ok(
      routes.some((r) => r.url === '/api/auth/login'),
      'the catalog sees module routes',
    );
    assert.ok(
      routes.some((r) => r.url === '/api/v1/probe/:probe_id'),
      'the catalog sees routes added later',
    );
    const missing = routes.filter((route) => !operationOf(document, route)).map((r) => `${r.method} ${r.url}`);
    assert.deepEqual(missing, [], 'routes missing from /openapi.json');
  });

  it('documents no route that does not exist, and none of the hidden ones', () => {
    const registered = new Set(
      documentedRoutes(t.routeCatalog).map((r) => `${r.method.toLowerCase()} ${openApiPath(r.url)}`),
    );
    const extra: string[] = [];
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const method of Object.keys(item ?? {})) {
        if (
          ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'].includes(method) &&
          !registered.has(`${method} ${path}`)
        ) {
          extra.push(`${method} ${path}`);
        }
      }
    }
    assert.deepEqual(extra, []);
    for (const hidden of ['/healthz', '/readyz', '/metrics', '/openapi.json'])
      assert.equal(document.paths?.[hidden], undefined, hidden);
  });

  it('every operation has tags, a summary and a typed success response', () => {
    const incomplete: string[] = [];
    for (const route of documentedRoutes(t.routeCatalog)) {
      const operation = operationOf(document, route)!;
      const success = Object.keys(operation.responses ?? {}).some((status) => /^2\d\d$/.test(status));
      if (!operation.tags?.length || !operation.summary || !success) incomplete.push(`${route.method} ${route.url}`);
    }
    assert.deepEqual(incomplete, [], 'operations without tags, summary or 2xx response schema');
  });

  it(
    'every route behind the bearer guards declares the bearer security scheme, naming ' +
      'the admin role where it needs one',
    () => {
      const { requireUser, requireAdmin } = t.app.guards;
      const expected = (route: (typeof t.routeCatalog)[number]) =>
        route.onRequest.includes(requireAdmin)
          ? [{ bearerAuth: ['admin'] }]
          : route.onRequest.includes(requireUser)
            ? bearerSecurity
            : undefined;
      const guarded = documentedRoutes(t.routeCatalog).filter((route) => expected(route));
      assert.ok(guarded.some((r) => r.url === '/api/auth/me'));
      assert.ok(guarded.some((r) => r.url === '/api/admin/users' && expected(r)?.[0]?.bearerAuth[0] === 'admin'));
      const undeclared = guarded
        .filter((route) => JSON.stringify(operationOf(document, route)?.security) !== JSON.stringify(expected(route)))
        .map((r) => `${r.method} ${r.url}`);
      assert.deepEqual(undeclared, []);
      assert.deepEqual(
        { ...document.components?.securitySchemes?.bearerAuth, description: undefined },
        { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: undefined },
      );
    },
  );

  it('a parameter with a default is optional, as FastAPI documents it; one without is required', () => {
    const parameters = (path: string) =>
      (document.paths?.[path]?.get?.parameters ?? []) as OpenAPIV3_1.ParameterObject[];
    const users = Object.fromEntries(parameters('/api/admin/users').map((p) => [p.name, p.required ?? false]));
    assert.deepEqual([users.page, users.limit, users.search], [false, false, false]);
    const range = Object.fromEntries(parameters('/api/v1/market/ohlc-range').map((p) => [p.name, p.required ?? false]));
    assert.deepEqual(
      [range.symbol, range.start, range.end, range.interval, range.limit],
      [true, true, true, false, false],
    );
    const defaultedButRequired = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.values(item ?? {}).flatMap((operation) =>
        (((operation as Operation).parameters as OpenAPIV3_1.ParameterObject[] | undefined) ?? [])
          .filter((p) => p.required && (p.schema as { default?: unknown } | undefined)?.default !== undefined)
          .map((p) => `${path} ${p.name}`),
      ),
    );
    assert.deepEqual(defaultedButRequired, []);
  });

  it('serves the interactive docs at /docs', async () => {
    let response = await t.app.inject({ method: 'GET', url: '/docs' });
    if (response.statusCode === 302)
      response = await t.app.inject({ method: 'GET', url: String(response.headers.location) });
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /swagger-ui/i);
  });

  const operations = () =>
    Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, Operation>).map(([method, operation]) => ({
        where: `${method.toUpperCase()} ${path}`,
        method,
        operation,
      })),
    );
  const httpError = { $ref: '#/components/schemas/HTTPError' };
  /** An operation's response, through its `$ref` when it is one of `components.responses`. */
  const responseOf = (operation: Operation, status: string) => {
    const response = operation.responses?.[status] as
      | OpenAPIV3_1.ResponseObject
      | OpenAPIV3_1.ReferenceObject
      | undefined;
    if (!response || !('$ref' in response)) return response;
    const name = response.$ref.replace('#/components/responses/', '');
    return document.components!.responses![name] as OpenAPIV3_1.ResponseObject;
  };

  it("documents on every operation Node's answers before there is a request: 400 (a malformed header) and 431", () => {
    const missing = operations().flatMap(({ where, operation }) =>
      ['400', '431']
        .filter((status) => {
          const response = responseOf(operation, status);
          // An operation's own 400 (a webhook answering its provider's shape) stands as it is documented.
          const own =
            status === '400' && response !== undefined && !response.description.startsWith('Malformed request');
          return (
            !response ||
            (!own && JSON.stringify(response.content?.['application/json']?.schema) !== JSON.stringify(httpError))
          );
        })
        .map((status) => `${where} ${status}`),
    );
    assert.deepEqual(missing, []);
    const me = document.paths!['/api/auth/me']!.get!;
    assert.match(responseOf(me, '400')!.description, /control character in a header/);
    // An operation's own 400 keeps its own description.
    assert.doesNotMatch(
      responseOf(document.paths!['/api/auth/password']!.post!, '400')!.description,
      /Malformed request/,
    );
  });

  it('documents a 422 only where there is input to refuse', () => {
    const noInput = operations().filter(
      ({ method, operation }) => method === 'get' && !operation.parameters?.length && !operation.requestBody,
    );
    assert.ok(noInput.some(({ where }) => where === 'GET /api/auth/me'));
    assert.deepEqual(
      noInput.filter(({ operation }) => operation.responses?.['422']).map(({ where }) => where),
      [],
    );
    // A header its security scheme names is input: a trigger without its secret is a 422.
    assert.ok(document.paths!['/api/scheduled/rotate-api-keys']!.post!.responses['422']);
    assert.ok(document.paths!['/api/auth/login']!.post!.responses['422']);
    // A POST without a declared body still parses a JSON one it is sent (and refuses a malformed one).
    assert.ok(document.paths!['/api/auth/logout']!.post!.responses['422']);
  });

  it('writes each error answer once, in components.responses, referenced by every operation giving it', () => {
    const inline = new Map<string, string[]>();
    const references = new Map<string, Set<string>>();
    for (const { where, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if ('$ref' in response) {
          references.set(status, (references.get(status) ?? new Set()).add(response.$ref));
          assert.ok(responseOf(operation, status), `${where} ${status}: ${response.$ref} resolves`);
        } else if (!/^2\d\d$/.test(status)) {
          const body = JSON.stringify(response);
          inline.set(body, [...(inline.get(body) ?? []), `${where} ${status}`]);
        }
      }
    }
    const repeated = [...inline.values()].filter((uses) => uses.length > 1);
    assert.deepEqual(repeated, [], 'an error answer written out on more than one operation');
    // Node's answers and the `{"detail"}` error of every guarded route: one component each, for all.
    assert.deepEqual([...references.get('431')!], ['#/components/responses/RequestHeaderFieldsTooLarge']);
    const guarded = operations().filter(
      ({ operation }) => operation.security?.some((r) => 'bearerAuth' in r) && operation.responses?.['401'],
    );
    assert.ok(guarded.length > 100);
    for (const { where, operation } of guarded)
      assert.deepEqual(operation.responses?.['401'], { $ref: '#/components/responses/Error' }, where);
    assert.equal(operations().filter(({ operation }) => operation.responses?.['431']).length, operations().length);
    // swagger-ui's OpenAPI 3.1 reader walks the whole document on every step of /docs: 673 KB with
    // each error inline, about 570 KB shared (decision 470). A bound that the inline document breaks.
    const size = Buffer.byteLength(JSON.stringify(document));
    assert.ok(size < 600_000, `the document is ${size} bytes`);
  });

  it('a shared answer documents the schema its route declares, $refs resolved', () => {
    const schemas = document.components!.schemas as Record<string, unknown>;
    const resolved = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(resolved);
      if (!node || typeof node !== 'object') return node;
      const { $ref, ...rest } = node as { $ref?: string };
      if ($ref) return resolved(schemas[$ref.replace('#/components/schemas/', '')]);
      return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, resolved(value)]));
    };
    const differing: string[] = [];
    let shared = 0;
    for (const route of documentedRoutes(t.routeCatalog)) {
      const operation = operationOf(document, route)!;
      for (const [status, schema] of Object.entries((route.schema?.response ?? {}) as Record<string, unknown>)) {
        // Success answers stay inline, as @fastify/swagger writes them (the description is the response's).
        if (/^2\d\d$/.test(status)) continue;
        const documented = operation.responses![status];
        // A GET that takes no input documents no 422, whatever its route lists (decision 100).
        if (!documented && status === '422' && route.method === 'GET') continue;
        if (documented && '$ref' in documented) shared++;
        const response = responseOf(operation, status)!;
        const media = response.content?.['application/json'];
        if (
          JSON.stringify(resolved(media?.schema)) !== JSON.stringify(schema) ||
          response.description !== (schema as { description?: string }).description
        )
          differing.push(`${route.method} ${route.url} ${status}`);
      }
    }
    assert.ok(shared > 300, `${shared} declared answers are shared`);
    assert.deepEqual(differing, []);
  });

  it("types a user's role, status and subscription tier as the closed sets they are", () => {
    const schemas = document.components!.schemas as Record<string, OpenAPIV3_1.SchemaObject>;
    const account = (document.paths!['/api/auth/me']!.get!.responses['200'] as OpenAPIV3_1.ResponseObject).content![
      'application/json'
    ]!.schema as OpenAPIV3_1.SchemaObject;
    const resolve = (schema: OpenAPIV3_1.SchemaObject | OpenAPIV3_1.ReferenceObject) =>
      '$ref' in schema ? schemas[schema.$ref.split('/').at(-1)!]! : schema;
    const listed = (document.paths!['/api/admin/users']!.get!.responses['200'] as OpenAPIV3_1.ResponseObject).content![
      'application/json'
    ]!.schema as OpenAPIV3_1.SchemaObject;
    const user = resolve(
      (resolve(listed).properties!.users as OpenAPIV3_1.ArraySchemaObject).items as OpenAPIV3_1.SchemaObject,
    );
    for (const schema of [resolve(account), user]) {
      const properties = schema.properties as Record<string, OpenAPIV3_1.SchemaObject>;
      assert.deepEqual(properties.role!.enum, ['user', 'admin']);
      assert.deepEqual(properties.status!.enum, ['active', 'suspended', 'deleted']);
      assert.deepEqual(properties.subscriptionTier!.enum, ['free', 'basic', 'pro', 'enterprise']);
    }
    // The claims the auth hook adds are the same sets.
    const hook = resolve(
      (
        document.paths!['/api/webhooks/platforms/authprovider/auth-hook']!.post!.responses[
          '200'
        ] as OpenAPIV3_1.ResponseObject
      ).content!['application/json']!.schema as OpenAPIV3_1.SchemaObject,
    );
    const claims = (hook.properties!.claims as OpenAPIV3_1.SchemaObject).properties as Record<
      string,
      OpenAPIV3_1.SchemaObject
    >;
    assert.deepEqual(
      [claims.user_role!.enum, claims.subscription_tier!.enum],
      [
        ['user', 'admin'],
        ['free', 'basic', 'pro', 'enterprise'],
      ],
    );
  });

  it(
    'opens the Authorize dialog of /docs on bearerAuth: ' + 'first scheme, and the first field takes the focus',
    async () => {
      assert.equal(Object.keys(document.components!.securitySchemes!)[0], 'bearerAuth');
      let page = await t.app.inject({ method: 'GET', url: '/docs' });
      if (page.statusCode === 302) page = await t.app.inject({ method: 'GET', url: String(page.headers.location) });
      const src = /<script src="([^"]*authorize-first\.js)"/.exec(page.body)?.[1];
      assert.ok(src, 'the docs page loads the focus script');
      const script = await t.app.inject({
        method: 'GET',
        url: src.startsWith('/') ? src : `/docs/${src.replace(/^\.\//, '')}`,
      });
      assert.equal(script.statusCode, 200, script.body);
      assert.match(String(script.headers['content-type']), /javascript/);
      assert.match(script.body, /\.dialog-ux/);
      assert.match(script.body, /scrollTop = 0/);
    },
  );
});
