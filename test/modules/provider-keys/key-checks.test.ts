// The key test against loopback fakes of the seven providers, re-encryption under a new encryption
// key, and the guarantee that a plaintext key never leaves the service except towards its provider.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { providerApiKeys } from '../../../src/modules/provider-keys/provider-keys.tables.ts';
import { keyId } from '../../../src/platform/crypto/secret-box.ts';
import { auditLog, outbox } from '../../../src/platform/db/schema.ts';
import {
  type AiProvidersFake,
  FAKE_PROVIDERS,
  startAiProvidersFake,
  type FakeProvider,
} from '../../fakes/ai-providers.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { closedPort } from '../../helpers/ports.ts';
import { buildTestApp, signIn, TEST_ENCRYPTION_KEY, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const BASE = '/api/v1/admin/api-keys';
const MISSING = '00000000-0000-4000-8000-000000000000';
const KEY_SHAPES: Record<FakeProvider, string> = {
  openai: 'sk-proj-',
  anthropic: 'sk-ant-api03-',
  google: 'AIzaSy',
  mistral: '',
  groq: 'gsk_',
  tavily: 'tvly-',
  serper: '',
};
const newKey = (provider: FakeProvider) => `${KEY_SHAPES[provider]}${randomBytes(20).toString('hex')}`;

describe('provider key checks', () => {
  let fake: AiProvidersFake;
  let t: TestApp;
  let admin: TestUser;
  let member: TestUser;

  before(async () => {
    fake = await startAiProvidersFake();
    t = await buildTestApp({ env: { PROVIDER_API_URLS: JSON.stringify(fake.apiUrls()), LOG_LEVEL: 'trace' } });
    admin = await signIn(t.app, t.database, { role: 'admin' });
    member = await signIn(t.app, t.database);
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
    user: TestUser | null = admin,
  ) => t.app.inject({ method, url, payload: payload as object, headers: user ? user.headers : {} });
  const register = async (provider: FakeProvider, apiKey: string) => {
    const response = await call('POST', BASE, { provider, api_key: apiKey });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().id as string;
  };
  const check = async (id: string) => {
    const response = await call('POST', `${BASE}/${id}/test`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  it('confirms a valid key of every provider with its own authentication scheme', async () => {
    for (const provider of FAKE_PROVIDERS) {
      const apiKey = newKey(provider);
      fake.addKey(provider, apiKey);
      const id = await register(provider, apiKey);
      const seen = fake.requests.length;
      const result = await check(id);
      assert.equal(result.provider, provider);
      assert.equal(result.is_valid, true, `${provider}: ${result.error_message}`);
      assert.equal(result.error_message, null);
      assert.ok(Number.isInteger(result.response_time_ms) && result.response_time_ms >= 0);
      assert.match(result.tested_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(fake.requests.length, seen + 1, 'one request per test');
      const request = fake.requests.at(-1)!;
      assert.equal(request.provider, provider);
      assert.ok(!request.query.has('key'), 'the key never travels in a URL');
      if (['openai', 'mistral', 'groq', 'tavily'].includes(provider))
        assert.equal(request.headers.authorization, `Bearer ${apiKey}`);
      if (provider === 'anthropic') {
        assert.equal(request.headers['x-api-key'], apiKey);
        assert.equal(request.headers['anthropic-version'], '2023-06-01');
      }
      if (provider === 'google') assert.equal(request.headers['x-goog-api-key'], apiKey);
      if (provider === 'serper') assert.equal(request.headers['x-api-key'], apiKey);
    }
    const paths = fake.requests.slice(-7).map((r) => `${r.provider} ${r.method} ${r.path}`);
    assert.deepEqual(paths, [
      'openai GET /v1/models',
      'anthropic GET /v1/models',
      'google GET /v1beta/models',
      'mistral GET /v1/models',
      'groq GET /openai/v1/models',
      'tavily POST /search',
      'serper POST /search',
    ]);
  });

  it('counts each test as a use and audits it without the key', async () => {
    const apiKey = newKey('openai');
    fake.addKey('openai', apiKey);
    const id = await register('openai', apiKey);
    await check(id);
    await check(id);
    const [record] = (await call('GET', BASE)).json().filter((k: { id: string }) => k.id === id);
    assert.equal(record.usage_count, 2);
    assert.ok(record.last_used_at);
    const activity = (await call('GET', `/api/admin/users/${admin.id}/activity?limit=100`)).json() as {
      action: string;
      target_id: string;
      details: unknown;
    }[];
    const tests = activity.filter((a) => a.target_id === id && a.action === 'provider_key.test').reverse();
    assert.equal(tests.length, 2);
    assert.deepEqual(tests[0]!.details, { provider: 'openai', is_valid: true, status: 200 });
  });

  it('reports a key the provider refuses, in each provider’s own way', async () => {
    for (const provider of FAKE_PROVIDERS) {
      const id = await register(provider, newKey(provider)); // never added to the fake
      const result = await check(id);
      assert.equal(result.is_valid, false, provider);
      const status = provider === 'google' ? 400 : provider === 'serper' ? 403 : 401;
      assert.equal(result.error_message, `The provider rejected the key (HTTP ${status})`, provider);
    }
  });

  it('answers is_valid false, never a 5xx, when the provider limits, fails or refuses a valid key', async () => {
    const apiKey = newKey('anthropic');
    fake.addKey('anthropic', apiKey);
    const id = await register('anthropic', apiKey);
    try {
      fake.fail('anthropic', 'rate_limited');
      const limited = await check(id);
      assert.equal(limited.is_valid, false);
      assert.match(limited.error_message, /HTTP 429/);

      fake.fail('anthropic', 'server_error');
      const failed = await check(id);
      assert.equal(failed.is_valid, false);
      assert.match(failed.error_message, /HTTP 500/);

      fake.fail('anthropic', 'unauthorized');
      assert.equal((await check(id)).error_message, 'The provider rejected the key (HTTP 401)');
    } finally {
      fake.recover('anthropic');
    }
    assert.equal((await check(id)).is_valid, true, 'works again once the provider recovers');
  });

  it('stops waiting for a provider that does not answer after PROVIDER_TEST_TIMEOUT_MS', async () => {
    const impatient = await buildTestApp({
      keepData: true,
      env: { PROVIDER_API_URLS: JSON.stringify(fake.apiUrls()), PROVIDER_TEST_TIMEOUT_MS: '300' },
    });
    const apiKey = newKey('anthropic');
    fake.addKey('anthropic', apiKey);
    try {
      const boss = await signIn(impatient.app, impatient.database, { role: 'admin' });
      const created = await impatient.app.inject({
        method: 'POST',
        url: BASE,
        payload: { provider: 'anthropic', api_key: apiKey },
        headers: boss.headers,
      });
      fake.fail('anthropic', 'hang');
      const response = await impatient.app.inject({
        method: 'POST',
        url: `${BASE}/${created.json().id}/test`,
        headers: boss.headers,
      });
      assert.equal(response.statusCode, 200);
      const hung = response.json();
      assert.equal(hung.is_valid, false);
      assert.equal(hung.error_message, 'The provider did not answer within 300 ms');
      assert.ok(hung.response_time_ms >= 250, `waited ${hung.response_time_ms} ms`);
    } finally {
      fake.recover('anthropic');
      await impatient.close();
    }
  });

  it('reports an unreachable provider', async () => {
    const port = await closedPort();
    const offline = await buildTestApp({
      keepData: true,
      env: { PROVIDER_API_URLS: JSON.stringify({ groq: `http://127.0.0.1:${port}` }) },
    });
    try {
      const boss = await signIn(offline.app, offline.database, { role: 'admin' });
      const created = await offline.app.inject({
        method: 'POST',
        url: BASE,
        payload: { provider: 'groq', api_key: newKey('groq') },
        headers: boss.headers,
      });
      const response = await offline.app.inject({
        method: 'POST',
        url: `${BASE}/${created.json().id}/test`,
        headers: boss.headers,
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().is_valid, false);
      assert.equal(response.json().error_message, 'The provider could not be reached (ECONNREFUSED)');
    } finally {
      await offline.close();
    }
  });

  it('answers 404 for an unknown key, 422 for a malformed id, 401 and 403 without admin rights', async () => {
    assertDetail(await call('POST', `${BASE}/${MISSING}/test`), 404, 'API key not found');
    assertIssue(await call('POST', `${BASE}/xyz/test`), ['path', 'key_id'], 'uuid_parsing');
    assertDetail(await call('POST', `${BASE}/${MISSING}/test`, undefined, null), 401, 'Not authenticated');
    assertDetail(await call('POST', `${BASE}/${MISSING}/test`, undefined, member), 403);
  });

  it('never lets a plaintext key reach a response, a log line, the audit trail or the outbox', async () => {
    const keys: string[] = [];
    const bodies: string[] = [];
    const record = async (response: { body: string }) => {
      bodies.push(response.body);
      return response;
    };
    const valid = newKey('openai');
    const invalid = newKey('openai');
    const replacement = newKey('openai');
    keys.push(valid, invalid, replacement);
    fake.addKey('openai', valid);
    fake.addKey('openai', replacement);

    const created = await record(await call('POST', BASE, { provider: 'openai', api_key: valid, notes: 'secrecy' }));
    const id = JSON.parse(created.body).id as string;
    const bad = JSON.parse((await record(await call('POST', BASE, { provider: 'openai', api_key: invalid }))).body)
      .id as string;
    await record(await call('POST', `${BASE}/${id}/test`));
    await record(await call('POST', `${BASE}/${bad}/test`));
    await record(await call('GET', `${BASE}?include_inactive=true`));
    await record(await call('GET', `${BASE}/rotation-reminders`));
    await record(await call('PUT', `${BASE}/${id}`, { api_key: replacement, notes: 'rotated' }));
    await record(await call('POST', `${BASE}/${id}/test`));
    // Rejected bodies that carry a real key.
    await record(await call('POST', BASE, { provider: 'cohere', api_key: valid }));
    await record(await call('POST', BASE, { api_key: `${valid} ` }));
    await record(await call('PUT', `${BASE}/${id}`, { api_key: `${replacement}\n`, rotation_reminder_days: 1 }));
    await record(await call('POST', BASE, `{"provider":"openai","api_key":"${valid}"`)); // broken JSON
    await record(await call('DELETE', `${BASE}/${bad}`));
    await record(await call('DELETE', `${BASE}/${id}`));

    assert.ok(t.logText().includes('"url":"/api/v1/admin/api-keys'), 'requests were logged at trace level');
    // Every store is scanned whole, whoever wrote to it: the audit trail, the outbox and the keys at rest.
    const audits = JSON.stringify(await t.database.db.select().from(auditLog));
    const messages = JSON.stringify(await t.database.db.select().from(outbox));
    const stored = JSON.stringify(await t.database.db.select().from(providerApiKeys));
    for (const key of keys) {
      for (const body of bodies) assert.ok(!body.includes(key), `a response carried a key: ${body.slice(0, 200)}`);
      assert.ok(!t.logText().includes(key), 'a log line carried a key');
      assert.ok(!audits.includes(key), 'the audit trail carried a key');
      assert.ok(!messages.includes(key), 'the outbox carried a key');
      assert.ok(!stored.includes(key), 'a key was stored in plaintext');
    }
  });
});

describe('re-encryption under a new encryption key', () => {
  it('re-seals every key sealed under a retired encryption key, and the keys still work', async () => {
    const fake = await startAiProvidersFake();
    const oldKey = TEST_ENCRYPTION_KEY;
    const newEncryptionKey = Buffer.alloc(32, 9).toString('base64');
    const urls = JSON.stringify(fake.apiUrls());
    const plaintexts = [newKey('mistral'), newKey('serper'), newKey('tavily')];
    fake.addKey('mistral', plaintexts[0]!).addKey('serper', plaintexts[1]!).addKey('tavily', plaintexts[2]!);
    try {
      const before = await buildTestApp({ env: { PROVIDER_API_URLS: urls } });
      const ids: string[] = [];
      try {
        const boss = await signIn(before.app, before.database, { role: 'admin' });
        for (const [i, provider] of (['mistral', 'serper', 'tavily'] as const).entries()) {
          const created = await before.app.inject({
            method: 'POST',
            url: BASE,
            payload: { provider, api_key: plaintexts[i] },
            headers: boss.headers,
          });
          ids.push(created.json().id);
        }
      } finally {
        await before.close();
      }

      const rotated = await buildTestApp({
        keepData: true,
        env: { PROVIDER_API_URLS: urls, ENCRYPTION_KEY: newEncryptionKey, ENCRYPTION_KEYS_OLD: oldKey },
      });
      try {
        const boss = await signIn(rotated.app, rotated.database, { role: 'admin' });
        // Sealed under the old key, still readable through ENCRYPTION_KEYS_OLD.
        const first = await rotated.app.inject({
          method: 'POST',
          url: `${BASE}/${ids[0]}/test`,
          headers: boss.headers,
        });
        assert.equal(first.json().is_valid, true, first.body);

        const module = rotated.modules.providerKeys;
        assert.deepEqual(await module.service.reencryptAll(), { scanned: 3, reencrypted: 3, unreadable: 0 });
        assert.deepEqual(await module.service.reencryptAll(), { scanned: 3, reencrypted: 0, unreadable: 0 });
        // Under which key a secret is sealed shows only at rest; the job's audit entries concern no
        // user, so no activity shows them.
        const rows = await rotated.database.db.select().from(providerApiKeys);
        const newId = keyId(Buffer.from(newEncryptionKey, 'base64'));
        for (const row of rows) {
          assert.equal(row.encryptedKey.split(':')[1], newId);
          assert.ok(
            plaintexts.includes(
              rotated.platform.secretBox.open(row.encryptedKey, {
                table: 'provider_api_keys',
                column: 'encrypted_key',
                row: row.id,
              }),
            ),
          );
        }
        const audits = await rotated.database.db
          .select()
          .from(auditLog)
          .where(eq(auditLog.action, 'provider_key.reencrypt'));
        assert.equal(audits.length, 3);
      } finally {
        await rotated.close();
      }

      // Once re-sealed, the retired key is no longer needed.
      const only = await buildTestApp({
        keepData: true,
        env: { PROVIDER_API_URLS: urls, ENCRYPTION_KEY: newEncryptionKey },
      });
      try {
        const boss = await signIn(only.app, only.database, { role: 'admin' });
        for (const id of ids) {
          const response = await only.app.inject({ method: 'POST', url: `${BASE}/${id}/test`, headers: boss.headers });
          assert.equal(response.json().is_valid, true, response.body);
        }
      } finally {
        await only.close();
      }
    } finally {
      await fake.close();
    }
  });

  it('reports a key sealed under an encryption key that is no longer configured, without a 5xx', async () => {
    const app = await buildTestApp();
    try {
      const boss = await signIn(app.app, app.database, { role: 'admin' });
      const created = await app.app.inject({
        method: 'POST',
        url: BASE,
        payload: { provider: 'openai', api_key: newKey('openai') },
        headers: boss.headers,
      });
      // A secret sealed under a key no longer configured cannot be made through any operation: written at rest.
      const foreign = `v1:ffffffffffff:${randomBytes(12).toString('base64')}:${randomBytes(16).toString('base64')}:AAAA`;
      await app.database.db
        .update(providerApiKeys)
        .set({ encryptedKey: foreign })
        .where(eq(providerApiKeys.id, created.json().id));
      const response = await app.app.inject({
        method: 'POST',
        url: `${BASE}/${created.json().id}/test`,
        headers: boss.headers,
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().is_valid, false);
      assert.match(response.json().error_message, /cannot be decrypted/);
      const module = app.modules.providerKeys;
      assert.deepEqual(await module.service.reencryptAll(), { scanned: 1, reencrypted: 0, unreadable: 1 });
    } finally {
      await app.close();
    }
  });
});
