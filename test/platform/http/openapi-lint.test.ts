// The OpenAPI document as client authors meet it: a standard linter's recommended rules, a typed
// client generated from it that compiles, stable operation names, and the /docs page.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

type Document = {
  paths: Record<
    string,
    Record<
      string,
      { operationId?: string; tags?: string[]; security?: unknown[]; parameters?: { name: string; in: string }[] }
    >
  >;
  tags: { name: string; description?: string }[];
  servers: unknown[];
  components: {
    schemas: Record<string, unknown>;
    securitySchemes: Record<string, unknown>;
    responses: Record<string, { content: Record<string, { schema: unknown }> }>;
  };
};

/**
 * The warnings of redocly's recommended rules that remain, each justified in
 * docs/decisions/100-openapi-document.md; anything else fails this test.
 */
const JUSTIFIED_WARNINGS = [
  'info-license-strict #/info/license',
  'no-ambiguous-paths #/paths/~1api~1exchange~1{exchange_name}~1info',
  'no-ambiguous-paths #/paths/~1api~1exchange~1{exchange_name}~1health',
  'no-ambiguous-paths #/paths/~1api~1admin~1users~1exports~1{export_id}',
].sort();

describe('the OpenAPI document for client authors', () => {
  let t: TestApp;
  let document: Document;
  let text: string;
  before(async () => {
    t = await buildTestApp();
    text = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).body;
    document = JSON.parse(text);
  });
  after(() => t.close());

  it("passes redocly's recommended rules with no error, and only the justified warnings", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
    const errors = problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    assert.deepEqual(errors, []);
    const warnings = problems
      .filter((p) => p.severity === 'warn')
      .map((p) => `${p.ruleId} ${p.location[0]?.pointer}`)
      .sort();
    assert.deepEqual(warnings, JUSTIFIED_WARNINGS);
  });

  it('gives every operation a unique camelCase operationId, and says who may call it', () => {
    const operations = Object.entries(document.paths).flatMap(([route, item]) =>
      Object.entries(item).map(([method, op]) => ({ route, method, op })),
    );
    assert.ok(operations.length >= 99);
    const ids = operations.map(({ op }) => op.operationId);
    assert.deepEqual(
      ids.filter((id) => !/^[a-z][A-Za-z0-9]+$/.test(String(id))),
      [],
    );
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    const byId = Object.fromEntries(
      operations.map(({ route, method, op }) => [op.operationId, `${method.toUpperCase()} ${route}`]),
    );
    // A few names clients are built on; renaming one breaks every generated client.
    assert.equal(byId.login, 'POST /api/auth/login');
    assert.equal(byId.listUsers, 'GET /api/admin/users');
    assert.equal(byId.syncBalance, 'POST /api/exchange/balance/sync');
    assert.equal(byId.getOhlcRange, 'GET /api/v1/market/ohlc-range');
    assert.equal(byId.runRotateApiKeys, 'POST /api/scheduled/rotate-api-keys');
    assert.equal(byId.receiveCodehostEvent, 'POST /api/webhooks/platforms/codehost');
    assert.deepEqual(
      operations.filter(({ op }) => op.security === undefined).map(({ route }) => route),
      [],
      'public operations say security: []',
    );
    assert.deepEqual(document.paths['/api/v1/market/ticker']!.get!.security, []);
    assert.deepEqual(document.paths['/api/auth/me']!.get!.security, [{ bearerAuth: [] }]);
  });

  it('documents the job secret and the webhook signatures as security schemes, not as loose headers', () => {
    const job = document.paths['/api/scheduled/rotate-api-keys']!.post!;
    assert.deepEqual(job.security, [{ scheduledJobSecret: [] }]);
    assert.ok(!(job.parameters ?? []).some((p) => p.name === 'x-scheduled-job-secret'));
    const codehost = document.paths['/api/webhooks/platforms/codehost']!.post!;
    assert.deepEqual(codehost.security, [{ codehostSignature: [] }]);
    assert.deepEqual(codehost.parameters?.map((p) => p.name).sort(), ['x-codehost-delivery', 'x-codehost-event']);
    assert.deepEqual(document.paths['/api/webhooks/mailer']!.post!.security, [
      { mailerSignature: [] },
      { mailerSvixSignature: [] },
    ]);
    assert.deepEqual(document.components.securitySchemes.scheduledJobSecret, {
      type: 'apiKey',
      in: 'header',
      name: 'x-scheduled-job-secret',
      description: 'The shared secret `SCHEDULED_JOB_SECRET`; a missing header answers 422, a wrong one 401.',
    });
  });

  it('lists its tags once each, described, admin groups together, and shares the error schemas', () => {
    const names = document.tags.map((tag) => tag.name);
    assert.equal(new Set(names).size, names.length);
    assert.deepEqual(
      document.tags.filter((tag) => !tag.description),
      [],
    );
    const admin = names.flatMap((name, i) => (name.startsWith('admin') ? [i] : []));
    assert.deepEqual(
      admin,
      admin.map((_, i) => admin[0]! + i),
      'the admin groups are adjacent',
    );
    const used = new Set(
      Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])),
    );
    assert.deepEqual(
      [...used].filter((tag) => !names.includes(tag)),
      [],
      'every tag in use is declared',
    );
    assert.ok(document.servers.length > 0);
    assert.ok(document.components.schemas.HTTPError && document.components.schemas.HTTPValidationError);
    // The 422 answer is one entry of components.responses, its body the shared schema (decision 470).
    assert.ok(
      (text.match(/"#\/components\/responses\/ValidationError"/g) ?? []).length > 50,
      'the 422 answer is referenced, not repeated',
    );
    assert.deepEqual(document.components.responses.ValidationError.content['application/json'].schema, {
      $ref: '#/components/schemas/HTTPValidationError',
    });
    assert.doesNotMatch(text, /"Default Response"/);
  });

  it('generates a typed client that compiles', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tp-client-'));
    writeFileSync(path.join(dir, 'api.ts'), astToString(await openapiTS(JSON.parse(text))));
    writeFileSync(
      path.join(dir, 'client.ts'),
      `import type { components, operations } from './api.ts';
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type LoginBody = Json<operations['login']['requestBody']>;
type Users = Json<operations['listUsers']['responses'][200]>;
export const login: LoginBody = { email: 'ada@example.com', password: 'correct horse battery' };
export const firstEmail = (users: Users): string | undefined => users.users[0]?.email;
export const problem = (error: components['schemas']['HTTPValidationError']) => error.detail.map((issue) => issue.loc.join('.'));
// A shared answer (components.responses) is typed at the operation that refers to it.
export const loginProblem = (error: Json<operations['login']['responses'][422]>) => error.detail[0]?.msg;
// @ts-expect-error: the login body has no such field
export const wrong: LoginBody = { email: 'ada@example.com', password: 'x', otp: 1 };
`,
    );
    const program = ts.createProgram([path.join(dir, 'client.ts')], {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      types: [],
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    assert.deepEqual(diagnostics, []);
  });

  it("serves /docs with the product's title, loading /openapi.json", async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<title>Trading Platform API<\/title>/);
    const initializer = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    assert.match(initializer.body, /"url":"\/openapi.json"/);
  });
});
