import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compileErrors, validate } from '@readme/openapi-parser';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

const OPERATIONS = [
  'GET /api/exchange/feetoken-burn',
  'POST /api/exchange/feetoken-burn',
  'GET /api/exchange/dust-assets',
  'POST /api/exchange/validate',
  'GET /api/exchange/markets',
  'GET /api/exchange/ticker',
  'GET /api/exchange/supported',
  'GET /api/exchange/quotes',
  'GET /api/exchange/route',
  'GET /api/exchange/{exchange_name}/info',
  'GET /api/exchange/credentials',
  'POST /api/exchange/credentials',
  'GET /api/exchange/credentials/{credential_id}',
  'DELETE /api/exchange/credentials/{credential_id}',
  'PUT /api/exchange/credentials/{credential_id}',
  'GET /api/exchange/balance',
  'POST /api/exchange/balance/sync',
  'GET /api/exchange/balance/history',
  'GET /api/exchange/trades',
  'POST /api/exchange/trades/sync',
  'GET /api/exchange/trades/stats',
  'GET /api/exchange/transfers',
  'POST /api/exchange/transfers/sync',
  'GET /api/exchange/health',
  'GET /api/exchange/{exchange_name}/health',
];

describe('exchange operations in the OpenAPI document', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  it('documents all 25 operations with typed responses and bearer security except the two health checks', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const paths = document.paths as Record<
      string,
      Record<string, { security?: unknown[]; responses: Record<string, { content?: unknown }>; tags?: string[] }>
    >;
    const found = Object.entries(paths)
      .filter(([path]) => path.startsWith('/api/exchange'))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    assert.deepEqual([...found].sort(), [...OPERATIONS].sort());
    for (const operation of OPERATIONS) {
      const [method, path] = operation.split(' ') as [string, string];
      const spec = paths[path]![method.toLowerCase()]!;
      const isHealth = path.endsWith('/health');
      // The health checks are public; a bearer token is optional there (it lets an admin force a refresh).
      assert.deepEqual(
        spec.security,
        isHealth ? [{}, { bearerAuth: [] }] : [{ bearerAuth: [] }],
        `${operation} security`,
      );
      const success = spec.responses['200'] ?? spec.responses['201'];
      assert.ok(success?.content, `${operation} has a typed success response`);
      assert.deepEqual(spec.tags, ['exchange']);
    }
    const result = await validate(structuredClone(document));
    assert.ok(result.valid, result.valid ? '' : compileErrors(result));
  });
});
