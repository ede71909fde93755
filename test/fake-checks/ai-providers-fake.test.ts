// The provider fake must answer like the real APIs: these checks pin what the key tests rely on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAiProvidersFake, type AiProvidersFake } from '../fakes/ai-providers.ts';

describe('AI and search providers fake', () => {
  let fake: AiProvidersFake;
  before(async () => {
    fake = await startAiProvidersFake();
    fake
      .addKey('openai', 'sk-proj-valid-0001')
      .addKey('anthropic', 'sk-ant-valid-0001')
      .addKey('google', 'AIzaSy-valid-0001')
      .addKey('tavily', 'tvly-valid-0001')
      .addKey('serper', 'serper-valid-0001');
  });
  after(() => fake.close());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${fake.url}${path}`, { headers });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${fake.url}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...headers },
    });

  it('lists OpenAI models for a valid bearer key and answers invalid_api_key with a masked key otherwise', async () => {
    const ok = await get('/openai/v1/models', { authorization: 'Bearer sk-proj-valid-0001' });
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).object, 'list');
    const bad = await get('/openai/v1/models', { authorization: 'Bearer sk-proj-wrong-9999' });
    assert.equal(bad.status, 401);
    const error = (await bad.json()).error;
    assert.equal(error.code, 'invalid_api_key');
    assert.ok(error.message.includes('sk-***9999') && !error.message.includes('wrong'));
    assert.equal((await get('/openai/v1/models')).status, 401);
  });

  it('requires anthropic-version before looking at the Anthropic key', async () => {
    const noVersion = await get('/anthropic/v1/models', { 'x-api-key': 'sk-ant-valid-0001' });
    assert.equal(noVersion.status, 400);
    assert.equal((await noVersion.json()).error.type, 'invalid_request_error');
    const bad = await get('/anthropic/v1/models', { 'x-api-key': 'nope', 'anthropic-version': '2023-06-01' });
    assert.equal(bad.status, 401);
    assert.equal((await bad.json()).error.type, 'authentication_error');
    assert.equal(
      (
        await get('/anthropic/v1/models?limit=1', {
          'x-api-key': 'sk-ant-valid-0001',
          'anthropic-version': '2023-06-01',
        })
      ).status,
      200,
    );
  });

  it('takes the Google key from ?key= or x-goog-api-key and refuses a bad one with 400 API_KEY_INVALID', async () => {
    assert.equal((await get('/google/v1beta/models?key=AIzaSy-valid-0001')).status, 200);
    assert.equal((await get('/google/v1beta/models', { 'x-goog-api-key': 'AIzaSy-valid-0001' })).status, 200);
    const bad = await get('/google/v1beta/models?key=AIzaSy-bad');
    assert.equal(bad.status, 400);
    const body = await bad.json();
    assert.equal(body.error.status, 'INVALID_ARGUMENT');
    assert.equal(body.error.details[0].reason, 'API_KEY_INVALID');
    assert.equal((await get('/google/v1beta/models')).status, 403);
  });

  it(
    'searches with Tavily (bearer or body key) and Serper ' + '(X-API-KEY), refusing bad keys with 401 and 403',
    async () => {
      assert.equal(
        (await post('/tavily/search', { query: 'btc' }, { authorization: 'Bearer tvly-valid-0001' })).status,
        200,
      );
      assert.equal((await post('/tavily/search', { query: 'btc', api_key: 'tvly-valid-0001' })).status, 200);
      assert.equal((await post('/tavily/search', { query: 'btc' }, { authorization: 'Bearer tvly-bad' })).status, 401);
      assert.equal((await post('/tavily/search', {}, { authorization: 'Bearer tvly-valid-0001' })).status, 400);
      assert.equal((await post('/serper/search', { q: 'btc' }, { 'x-api-key': 'serper-valid-0001' })).status, 200);
      const bad = await post('/serper/search', { q: 'btc' }, { 'x-api-key': 'serper-bad' });
      assert.equal(bad.status, 403);
      assert.deepEqual(await bad.json(), { message: 'Unauthorized.', statusCode: 403 });
    },
  );

  it('fails on demand: 429 with Retry-After, 500, 401 for a valid key, and a hang', async () => {
    const auth = { authorization: 'Bearer sk-proj-valid-0001' };
    fake.fail('openai', 'rate_limited');
    const limited = await get('/openai/v1/models', auth);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '20');
    fake.fail('openai', 'server_error');
    assert.equal((await get('/openai/v1/models', auth)).status, 500);
    fake.fail('openai', 'unauthorized');
    assert.equal((await get('/openai/v1/models', auth)).status, 401);
    fake.fail('openai', 'hang');
    await assert.rejects(fetch(`${fake.url}/openai/v1/models`, { headers: auth, signal: AbortSignal.timeout(150) }), {
      name: 'TimeoutError',
    });
    fake.recover();
    assert.equal((await get('/openai/v1/models', auth)).status, 200);
  });

  it('answers 404 for an unknown path and 405 for a wrong method, and records every request', async () => {
    const before = fake.requests.length;
    assert.equal((await get('/groq/v1/models')).status, 404);
    assert.equal((await post('/mistral/v1/models', {})).status, 405);
    assert.equal((await get('/nobody/v1/models')).status, 404);
    assert.equal(fake.requests.length, before + 2);
  });
});
