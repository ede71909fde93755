// A provider's answer to a key check is read up to 64 KiB through the platform's one bounded reader
// (decision 1042): an answer without end is abandoned there, and the check answers what its status says.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ENDLESS_BODY_BYTES, startEndlessServer, type EndlessServer } from '../../fakes/endless-body.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const BASE = '/api/v1/admin/api-keys';

describe("a provider's answer to a key check is read within a bound", () => {
  let endless: EndlessServer;
  let t: TestApp;
  let admin: TestUser;
  before(async () => {
    endless = await startEndlessServer(500, '{"error":{"message":"');
    t = await buildTestApp({ env: { PROVIDER_API_URLS: JSON.stringify({ groq: endless.url }) } });
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
    await endless.close();
  });

  it('a 500 without end: the check says the provider failed, and the answer was abandoned', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: BASE,
      payload: { provider: 'groq', api_key: `gsk_${randomBytes(20).toString('hex')}` },
      headers: admin.headers,
    });
    assert.equal(created.statusCode, 201, created.body);
    const response = await t.app.inject({
      method: 'POST',
      url: `${BASE}/${created.json().id}/test`,
      headers: admin.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().is_valid, false);
    assert.equal(
      response.json().error_message,
      'The provider failed (HTTP 500); the key could not be confirmed, try again later',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(endless.completed, 0, 'the whole answer was read');
    assert.ok(endless.sent < ENDLESS_BODY_BYTES / 8, `the provider wrote ${endless.sent} bytes`);
  });
});
