import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const SOME_ID = '00000000-0000-4000-8000-000000000000';

// Every admin users operation, with parameters that would be invalid: security runs before
// validation, so the answer must still be 401 or 403, never 422.
const OPERATIONS: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: object }[] = [
  { method: 'GET', url: '/api/admin/users?limit=0' },
  { method: 'GET', url: `/api/admin/users/${SOME_ID}` },
  { method: 'PATCH', url: `/api/admin/users/${SOME_ID}`, payload: { role: 'owner' } },
  { method: 'DELETE', url: `/api/admin/users/${SOME_ID}` },
  { method: 'GET', url: '/api/admin/stats' },
  { method: 'POST', url: '/api/admin/users/bulk-action', payload: { userIds: [], action: 'nuke' } },
  { method: 'GET', url: `/api/admin/users/exports/${SOME_ID}` },
  { method: 'POST', url: '/api/admin/users/reset-password' },
  { method: 'GET', url: `/api/admin/users/${SOME_ID}/activity?limit=0` },
  { method: 'GET', url: '/api/admin/platform-limits' },
  { method: 'PATCH', url: '/api/admin/platform-limits', payload: { backtest_per_hour: 0 } },
];

describe('admin users: authentication and authorisation', () => {
  let t: TestApp;
  let member: TestUser;

  before(async () => {
    t = await buildTestApp();
    member = await signIn(t.app, t.database);
  });
  after(async () => {
    await t.close();
  });

  for (const op of OPERATIONS) {
    const name = `${op.method} ${op.url.split('?')[0]}`;

    it(`${name} answers 401 Not authenticated without a token`, async () => {
      const response = await t.app.inject({ method: op.method, url: op.url, payload: op.payload });
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), { detail: 'Not authenticated' });
      assert.equal(response.headers['www-authenticate'], 'Bearer');
    });

    it(`${name} answers 403 to a signed-in user who is not an admin`, async () => {
      const response = await t.app.inject({
        method: op.method,
        url: op.url,
        payload: op.payload,
        headers: member.headers,
      });
      assert.equal(response.statusCode, 403);
      assert.deepEqual(response.json(), { detail: 'Admin role required' });
    });
  }

  it('documents every operation in the OpenAPI document with the bearer scheme', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const op of OPERATIONS) {
      const path = op.url
        .split('?')[0]!
        .replace(SOME_ID, '{id}')
        .replace('/users/{id}', '/users/{user_id}')
        .replace('/exports/{id}', '/exports/{export_id}');
      const operation = document.paths[path]?.[op.method.toLowerCase()];
      assert.ok(operation, `${op.method} ${path} is documented`);
      assert.deepEqual(operation.security, [{ bearerAuth: ['admin'] }], 'the admin role is named');
      assert.ok(operation.summary);
    }
  });
});
