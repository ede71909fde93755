import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const URL = '/api/v1/admin/rag-settings';

describe('retrieval settings', () => {
  let t: TestApp;
  let admin: TestUser;
  let member: TestUser;

  before(async () => {
    t = await buildTestApp();
    admin = await signIn(t.app, t.database, { role: 'admin' });
    member = await signIn(t.app, t.database);
  });
  after(async () => {
    await t.close();
  });
  // Every test starts from the defaults, which no operation restores.
  beforeEach(async () => {
    await t.database.db.execute(sql`DELETE FROM rag_settings`);
  });

  const get = (user: TestUser | null = admin) =>
    t.app.inject({ method: 'GET', url: URL, headers: user ? user.headers : {} });
  const put = (payload: unknown, user: TestUser | null = admin) =>
    t.app.inject({ method: 'PUT', url: URL, payload: payload as object, headers: user ? user.headers : {} });

  it('answers 401 without a token and 403 for a non-admin, on both operations', async () => {
    assertDetail(await get(null), 401, 'Not authenticated');
    assertDetail(await put({ version: 1 }, null), 401, 'Not authenticated');
    assertDetail(await get(member), 403);
    assertDetail(await put({ collection_interval_minutes: 0 }, member), 403);
  });

  it('starts from the defaults at version 1', async () => {
    const response = await get();
    assert.equal(response.statusCode, 200);
    const settings = response.json();
    assert.match(settings.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(settings.enabled_sources, {
      news: true,
      reddit: true,
      twitter: false,
      telegram: false,
      discord: false,
      youtube: false,
    });
    assert.deepEqual(settings.collection_limits, {
      news: 200,
      reddit: 300,
      twitter: 200,
      telegram: 200,
      discord: 200,
      youtube: 50,
    });
    assert.equal(settings.collection_interval_minutes, 30);
    assert.equal(settings.auto_expiration_days, 30);
    assert.equal(settings.max_posts_per_run, 1000);
    assert.equal(settings.version, 1);
    assert.equal(settings.updated_by, null);
    assert.equal((await get()).json().id, settings.id, 'one row, read again');
  });

  it('applies a change made at the stored version, bumps it, merges the maps and audits it', async () => {
    const response = await put({
      version: 1,
      enabled_sources: { twitter: true, mastodon: true },
      collection_limits: { twitter: 500 },
      collection_interval_minutes: 15,
      auto_expiration_days: 90,
      max_posts_per_run: 5000,
    });
    assert.equal(response.statusCode, 200, response.body);
    const settings = response.json();
    assert.equal(settings.version, 2);
    assert.equal(settings.updated_by, admin.id);
    assert.equal(settings.enabled_sources.twitter, true);
    assert.equal(settings.enabled_sources.mastodon, true);
    assert.equal(settings.enabled_sources.news, true, 'keys not sent are kept');
    assert.equal(settings.collection_limits.twitter, 500);
    assert.equal(settings.collection_limits.reddit, 300);
    assert.equal(settings.collection_interval_minutes, 15);
    assert.equal(settings.auto_expiration_days, 90);
    assert.equal(settings.max_posts_per_run, 5000);
    assert.deepEqual((await get()).json(), settings);
    const activity = (
      await t.app.inject({
        method: 'GET',
        url: `/api/admin/users/${admin.id}/activity?limit=100`,
        headers: admin.headers,
      })
    ).json();
    const entries = (activity as { action: string; actor_id: string; details: { changed: string[] } }[]).filter(
      (a) => a.action === 'rag_settings.update',
    );
    assert.equal(entries.length, 1);
    const [entry] = entries;
    assert.equal(entry!.actor_id, admin.id);
    assert.deepEqual(entry!.details.changed.sort(), [
      'auto_expiration_days',
      'collection_interval_minutes',
      'collection_limits',
      'enabled_sources',
      'max_posts_per_run',
    ]);
  });

  it('refuses a stale version with 409 and changes nothing', async () => {
    assert.equal((await put({ version: 1, max_posts_per_run: 200 })).statusCode, 200);
    const response = await put({ version: 1, max_posts_per_run: 300 });
    assertDetail(response, 409);
    assert.match(response.json().detail, /current version 2/);
    const stored = (await get()).json();
    assert.equal(stored.max_posts_per_run, 200);
    assert.equal(stored.version, 2);
    assertDetail(await put({ version: 7 }), 409);
  });

  it('applies a change without a version to whatever is stored (last write wins)', async () => {
    await put({ version: 1, collection_interval_minutes: 60 });
    const response = await put({ collection_interval_minutes: 90 });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().collection_interval_minutes, 90);
    assert.equal(response.json().version, 3);
  });

  it('answers the stored settings unchanged for a body without changes', async () => {
    const response = await put({ version: 1 });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().version, 1);
  });

  it('lets exactly one of two concurrent writers at the same version win', async () => {
    await get();
    const results = await Promise.all([
      put({ version: 1, collection_interval_minutes: 10 }),
      put({ version: 1, collection_interval_minutes: 20 }),
      put({ version: 1, collection_interval_minutes: 40 }),
    ]);
    const codes = results.map((r) => r.statusCode).sort();
    assert.deepEqual(codes, [200, 409, 409]);
    const winner = results.find((r) => r.statusCode === 200)!.json();
    const stored = (await get()).json();
    assert.equal(stored.version, 2);
    assert.equal(stored.collection_interval_minutes, winner.collection_interval_minutes);
  });

  it('enforces every bound with the Pydantic shape', async () => {
    const cases: [string, number, string, Record<string, number>][] = [
      ['collection_interval_minutes', 4, 'greater_than_equal', { ge: 5 }],
      ['collection_interval_minutes', 181, 'less_than_equal', { le: 180 }],
      ['auto_expiration_days', 0, 'greater_than_equal', { ge: 1 }],
      ['auto_expiration_days', 366, 'less_than_equal', { le: 365 }],
      ['max_posts_per_run', 99, 'greater_than_equal', { ge: 100 }],
      ['max_posts_per_run', 10_001, 'less_than_equal', { le: 10_000 }],
      ['version', 0, 'greater_than_equal', { ge: 1 }],
    ];
    for (const [field, value, type, ctx] of cases) {
      const issue = assertIssue(await put({ [field]: value }), ['body', field], type);
      assert.deepEqual(issue.ctx, ctx);
      assert.equal(issue.input, value);
    }
    for (const [field, value] of [
      ['collection_interval_minutes', 5],
      ['collection_interval_minutes', 180],
      ['auto_expiration_days', 1],
      ['auto_expiration_days', 365],
      ['max_posts_per_run', 100],
      ['max_posts_per_run', 10_000],
    ] as const) {
      assert.equal((await put({ [field]: value })).statusCode, 200, `${field}=${value} is within bounds`);
    }
    assert.equal((await get()).json().collection_interval_minutes, 180);
  });

  it('keeps each stored map within 50 names, however many PUTs add to it (decision 992)', async () => {
    const names = (prefix: string, n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, true]));
    // The defaults hold 6 names: 44 more fill the map.
    const filled = await put({ enabled_sources: names('a', 44) });
    assert.equal(filled.statusCode, 200);
    assert.equal(Object.keys(filled.json().enabled_sources).length, 50);

    const over = await put({ enabled_sources: { b0: true, news: false }, version: 2 });
    assert.equal(over.statusCode, 422);
    assert.deepEqual(over.json(), {
      detail: [
        {
          type: 'too_long',
          loc: ['body', 'enabled_sources'],
          msg: 'Dictionary should have at most 50 items after validation, not 51',
          input: { b0: true, news: false },
          ctx: { field_type: 'Dictionary', max_length: 50, actual_length: 51 },
        },
      ],
    });
    const limits = await put({ collection_limits: Object.fromEntries(Object.keys(names('c', 45)).map((k) => [k, 5])) });
    assert.equal(limits.statusCode, 422, '6 stored and 45 new is 51');
    assert.equal(limits.json().detail[0].loc[1], 'collection_limits');
    const current = (await get()).json();
    assert.deepEqual([current.version, current.enabled_sources.news], [2, true], 'nothing was applied');

    // Names already stored can still be changed.
    const changed = await put({ enabled_sources: { news: false, a0: false }, version: 2 });
    assert.equal(changed.statusCode, 200);
    assert.equal(Object.keys(changed.json().enabled_sources).length, 50);
  });

  it('validates the maps and reports every invalid field at once', async () => {
    const response = await put({
      enabled_sources: { news: 'maybe', 'Bad Name': true },
      collection_limits: { news: 0, reddit: 1.5 },
      collection_interval_minutes: 'often',
      version: 'latest',
    });
    assertIssue(response, ['body', 'enabled_sources', 'news'], 'bool_parsing');
    assertIssue(response, ['body', 'enabled_sources', 'Bad Name'], 'extra_forbidden');
    assertIssue(response, ['body', 'collection_limits', 'news'], 'greater_than_equal');
    assertIssue(response, ['body', 'collection_limits', 'reddit'], 'int_from_float');
    assertIssue(response, ['body', 'collection_interval_minutes'], 'int_parsing');
    assertIssue(response, ['body', 'version'], 'int_parsing');
    assertIssue(
      await put({ collection_limits: { news: 10_001 } }),
      ['body', 'collection_limits', 'news'],
      'less_than_equal',
    );
    assertIssue(await put({ enabled_sources: [true] }), ['body', 'enabled_sources'], 'dict_type');
    assert.equal((await get()).json().version, 1, 'nothing was applied');
  });
});
