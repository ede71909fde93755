// A small Fastify app wired with the production validation and error handling, and helpers to
// read its 422s; shared by the validation test files.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { Type } from 'typebox';
import { registerErrorHandling } from '../../../src/platform/http/error-handler.ts';
import { unauthenticated } from '../../../src/platform/http/errors.ts';
import { DateTime, StringEnum, Uuid } from '../../../src/platform/http/schemas.ts';
import { registerValidation } from '../../../src/platform/http/validation.ts';

export const ID = '3f0e8b8e-6c1a-4d8e-9a57-2f7d1c9b0a11';

const ItemQuery = Type.Object({
  name: Type.String({ minLength: 3, maxLength: 5 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
  price: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1000 })),
  active: Type.Optional(Type.Boolean()),
  since: Type.Optional(DateTime()),
  sort: Type.Optional(StringEnum(['asc', 'desc'])),
  kind: Type.Optional(StringEnum(['a', 'b', 'c'], { literal: true })),
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 1 })),
});

const ThingBody = Type.Object({
  title: Type.String({ minLength: 3, maxLength: 200 }),
  count: Type.Integer({ minimum: 1 }),
  permissions: Type.Array(StringEnum(['read', 'trade', 'withdraw'])),
  ratio: Type.Optional(Type.Number()),
  flag: Type.Optional(Type.Boolean()),
  meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  at: Type.Optional(DateTime()),
  owner_id: Type.Optional(Uuid()),
  priority: Type.Optional(
    Type.Union([Type.Literal('critical'), Type.Literal('high'), Type.Literal('medium'), Type.Literal('low')]),
  ),
  blocked_by: Type.Optional(Type.Array(Uuid())),
  api_secret: Type.Optional(Type.String({ minLength: 8 })),
});

export async function buildValidationApp(): Promise<FastifyInstance> {
  const app = Fastify();
  registerValidation(app);
  registerErrorHandling(app);
  app.get(
    '/items/:item_id',
    {
      schema: {
        params: Type.Object({ item_id: Uuid() }),
        querystring: ItemQuery,
        headers: Type.Object({ 'x-trace': Type.String({ minLength: 3 }) }),
      },
    },
    async (request) => ({ params: request.params, query: request.query }),
  );
  app.post(
    '/things/:thing_id',
    {
      schema: {
        params: Type.Object({ thing_id: Uuid() }),
        querystring: Type.Object({ dry_run: Type.Boolean({ default: false }) }),
        body: ThingBody,
      },
    },
    async (request) => ({ body: request.body, query: request.query }),
  );
  app.post(
    '/optional',
    { schema: { body: Type.Object({ note: Type.Optional(Type.String({ default: 'none' })) }) } },
    async (request) => request.body,
  );
  app.get(
    '/guarded',
    {
      onRequest: async () => {
        throw unauthenticated();
      },
      schema: { querystring: Type.Object({ limit: Type.Integer({ minimum: 1 }) }) },
    },
    async () => ({}),
  );
  await app.ready();
  return app;
}

type Issue = {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
};
type Answer = { statusCode: number; json(): unknown; body: string };

export function issuesOf(response: Answer): Issue[] {
  assert.equal(response.statusCode, 422, response.body);
  return (response.json() as { detail: Issue[] }).detail;
}

/** The single issue at `loc` of a 422. */
export function issueAt(response: Answer, loc: (string | number)[]): Issue {
  const found = issuesOf(response).find((issue) => JSON.stringify(issue.loc) === JSON.stringify(loc));
  assert.ok(found, `no issue at ${JSON.stringify(loc)} in ${response.body}`);
  return found;
}

/** Asserts that the 422 holds, at the expected issue's loc, exactly that issue. */
export function assertExactIssue(response: Answer, expected: Issue): void {
  assert.deepEqual(issueAt(response, expected.loc), expected);
}

export const validThing = { title: 'Buy', count: 1, permissions: ['read'] };

/** Request helpers bound to one app. */
export function client(app: () => FastifyInstance) {
  const postJson = async (url: string, payload: string) =>
    app().inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });
  return {
    inject: async (options: InjectOptions) => app().inject(options),
    getItem: async (query: string, headers: Record<string, string> = { 'x-trace': 'abc' }, id = ID) =>
      app().inject({ method: 'GET', url: `/items/${id}?${query}`, headers }),
    postThing: async (body: unknown, query = '') => postJson(`/things/${ID}?${query}`, JSON.stringify(body)),
    /** Posts the text as it is, declared as JSON. */
    postRaw: async (payload: string) => postJson(`/things/${ID}`, payload),
  };
}

/** One app for the enclosing suite, built before its tests and closed after them, and helpers bound to it. */
export function validationApp() {
  let app: FastifyInstance;
  before(async () => {
    app = await buildValidationApp();
  });
  after(async () => {
    await app.close();
  });
  return client(() => app);
}
