import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compileErrors, validate } from '@readme/openapi-parser';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

describe('dashboard operations in the OpenAPI document', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  it(
    'documents the three GETs, public, with typed responses ' + 'that describe every field and the gateway advice',
    async () => {
      const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const paths = Object.keys(document.paths).filter((path) => path.startsWith('/api/v1/dashboard'));
      assert.deepEqual(paths.sort(), [
        '/api/v1/dashboard/agents',
        '/api/v1/dashboard/integrations',
        '/api/v1/dashboard/overview',
      ]);
      for (const path of paths) {
        assert.deepEqual(Object.keys(document.paths[path]), ['get']);
        const operation = document.paths[path].get;
        assert.deepEqual(operation.tags, ['dashboard']);
        assert.deepEqual(operation.security, [], `${path} is public as in the contract`);
        assert.match(operation.description, /behind its gateway/);
        const schema = operation.responses['200'].content['application/json'].schema;
        // Every property at every depth carries a description.
        const undescribed: string[] = [];
        let visited = 0;
        const walk = (node: Record<string, unknown>, at: string) => {
          const properties = (node.properties ?? {}) as Record<string, Record<string, unknown>>;
          for (const [name, child] of Object.entries(properties)) {
            visited += 1;
            if (
              !child.description &&
              !(child.anyOf as Record<string, unknown>[] | undefined)?.some((c) => c.description)
            )
              undescribed.push(`${at}.${name}`);
            walk(child, `${at}.${name}`);
            for (const variant of (child.anyOf ?? []) as Record<string, unknown>[]) walk(variant, `${at}.${name}`);
            if (child.items) walk(child.items as Record<string, unknown>, `${at}.${name}[]`);
          }
        };
        walk(schema, path);
        assert.ok(visited >= 10, `${path}: the response schema is inline and typed (${visited} fields)`);
        assert.deepEqual(undescribed, []);
      }
      const result = await validate(structuredClone(document));
      assert.ok(result.valid, result.valid ? '' : compileErrors(result));
    },
  );
});
