import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { providerApiKeys } from '../../../src/modules/provider-keys/provider-keys.tables.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const BASE = '/api/v1/admin/api-keys';
const MISSING = '00000000-0000-4000-8000-000000000000';
const NOW = '2025-05-01T12:00:00.000Z';
const DAY = 86_400_000;
const daysFrom = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY).toISOString();
const secretKey = (prefix = 'sk-proj-') => `${prefix}${randomBytes(24).toString('hex')}`;

describe('provider API keys', () => {
  const clock = fixedClock(NOW);
  let t: TestApp;
  let admin: TestUser;
  let member: TestUser;

  before(async () => {
    t = await buildTestApp({ clock });
    admin = await signIn(t.app, t.database, { role: 'admin' });
    member = await signIn(t.app, t.database);
  });
  after(async () => {
    await t.close();
  });

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
    user: TestUser | null = admin,
  ) => t.app.inject({ method, url, payload: payload as object, headers: user ? user.headers : {} });
  /** The audit entries the admin wrote, newest first, as the admin's activity shows them. */
  const adminActivity = async () =>
    (await call('GET', `/api/admin/users/${admin.id}/activity?limit=100`)).json() as {
      action: string;
      target_id: string | null;
    }[];
  const create = async (payload: Record<string, unknown>) => {
    const response = await call('POST', BASE, payload);
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };

  it('every route answers 401 without a token and 403 for a non-admin', async () => {
    const routes: [string, string, unknown][] = [
      ['GET', BASE, undefined],
      ['POST', BASE, { provider: 'openai', api_key: secretKey() }],
      ['PUT', `${BASE}/${MISSING}`, { is_active: false }],
      ['DELETE', `${BASE}/${MISSING}`, undefined],
      ['POST', `${BASE}/${MISSING}/test`, undefined],
      ['GET', `${BASE}/rotation-reminders`, undefined],
    ];
    for (const [method, url, payload] of routes) {
      const anonymous = await call(method as 'GET', url, payload, null);
      assertDetail(anonymous, 401, 'Not authenticated');
      assert.equal(anonymous.headers['www-authenticate'], 'Bearer');
      assertDetail(await call(method as 'GET', url, payload, member), 403);
    }
  });

  describe('create', () => {
    it('stores the key sealed and returns only its prefix, with rotation dates and an audit entry', async () => {
      const plaintext = secretKey();
      const record = await create({ provider: 'openai', api_key: plaintext, notes: 'production' });
      assert.deepEqual(Object.keys(record).sort(), [
        'created_at',
        'created_by',
        'id',
        'is_active',
        'key_prefix',
        'last_rotated_at',
        'last_used_at',
        'next_rotation_date',
        'notes',
        'provider',
        'rotation_reminder_days',
        'updated_at',
        'updated_by',
        'usage_count',
      ]);
      assert.equal(record.provider, 'openai');
      assert.equal(record.key_prefix, 'sk-proj…');
      assert.equal(record.is_active, true);
      assert.equal(record.usage_count, 0);
      assert.equal(record.last_used_at, null);
      assert.equal(record.last_rotated_at, null);
      assert.equal(record.rotation_reminder_days, 90);
      assert.equal(record.created_at, NOW);
      assert.equal(record.next_rotation_date, daysFrom(NOW, 90));
      assert.equal(record.notes, 'production');
      assert.equal(record.created_by, admin.id);
      assert.equal(record.updated_by, admin.id);

      // That the key is sealed at rest shows only in its table.
      const [row] = await t.database.db.select().from(providerApiKeys).where(eq(providerApiKeys.id, record.id));
      assert.ok(!row!.encryptedKey.includes(plaintext));
      assert.equal(
        t.platform.secretBox.open(row!.encryptedKey, {
          table: 'provider_api_keys',
          column: 'encrypted_key',
          row: record.id,
        }),
        plaintext,
      );
      const entries = (await adminActivity()).filter((e) => e.target_id === record.id);
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.action, 'provider_key.create');
      assert.ok(!JSON.stringify(entries[0]).includes(plaintext));
    });

    it('accepts each of the seven providers', async () => {
      for (const provider of ['openai', 'anthropic', 'google', 'mistral', 'groq', 'tavily', 'serper']) {
        const record = await create({ provider, api_key: secretKey('k-'), rotation_reminder_days: 30 });
        assert.equal(record.provider, provider);
        assert.equal(record.next_rotation_date, daysFrom(NOW, 30));
      }
    });

    it('enforces the provider set, key length and reminder bounds, all at once', async () => {
      const response = await call('POST', BASE, {
        provider: 'cohere',
        api_key: 'short-key',
        rotation_reminder_days: 29,
        notes: 'n'.repeat(2001),
      });
      const provider = assertIssue(response, ['body', 'provider'], 'enum');
      assert.equal(
        provider.msg,
        "Input should be 'openai', 'anthropic', 'google', 'mistral', 'groq', 'tavily' or 'serper'",
      );
      const key = assertIssue(response, ['body', 'api_key'], 'string_too_short');
      assert.deepEqual(key.ctx, { min_length: 10 });
      assert.deepEqual(assertIssue(response, ['body', 'rotation_reminder_days'], 'greater_than_equal').ctx, { ge: 30 });
      assertIssue(response, ['body', 'notes'], 'string_too_long');
      const high = assertIssue(
        await call('POST', BASE, { provider: 'openai', api_key: secretKey(), rotation_reminder_days: 366 }),
        ['body', 'rotation_reminder_days'],
        'less_than_equal',
      );
      assert.deepEqual(high.ctx, { le: 365 });
      assertIssue(await call('POST', BASE, {}), ['body', 'provider'], 'missing');
      assertIssue(await call('POST', BASE, { provider: 'openai' }), ['body', 'api_key'], 'missing');
      assert.equal(
        (await call('POST', BASE, { provider: 'groq', api_key: '0123456789', rotation_reminder_days: 365 })).json()
          .key_prefix,
        '01…',
      );
    });

    it('never echoes a rejected key in the 422', async () => {
      const plaintext = `${secretKey()}\n`;
      const response = await call('POST', BASE, { provider: 'openai', api_key: plaintext });
      const issue = assertIssue(response, ['body', 'api_key'], 'string_pattern_mismatch');
      assert.equal(issue.input, '**********');
      const missing = await call('POST', BASE, { api_key: plaintext.trim() });
      const whole = assertIssue(missing, ['body', 'provider'], 'missing');
      assert.equal((whole.input as { api_key: string }).api_key, '**********');
      assert.ok(!response.body.includes(plaintext.trim()) && !missing.body.includes(plaintext.trim()));
    });
  });

  describe('list', () => {
    it('hides inactive keys unless include_inactive', async () => {
      const active = await create({ provider: 'mistral', api_key: secretKey('mst-') });
      const retired = await create({ provider: 'mistral', api_key: secretKey('mst-') });
      await call('PUT', `${BASE}/${retired.id}`, { is_active: false });
      const ids = (query: string) =>
        call('GET', `${BASE}${query}`).then((r) => r.json().map((k: { id: string }) => k.id));
      const shown = await ids('');
      assert.ok(shown.includes(active.id) && !shown.includes(retired.id));
      assert.ok((await ids('?include_inactive=true')).includes(retired.id));
      assert.ok(!(await ids('?include_inactive=false')).includes(retired.id));
      assertIssue(await call('GET', `${BASE}?include_inactive=perhaps`), ['query', 'include_inactive'], 'bool_parsing');
      const all = (await call('GET', `${BASE}?include_inactive=true`)).json() as { provider: string }[];
      const providers = all.map((k) => k.provider);
      assert.deepEqual(providers, [...providers].sort(), 'ordered by provider');
      assert.ok(all.every((k) => !('api_key' in k) && !('encrypted_key' in k)));
    });
  });

  describe('update', () => {
    it('recomputes next_rotation_date from last_rotated_at and the reminder days', async () => {
      const record = await create({ provider: 'anthropic', api_key: secretKey('sk-ant-api03-') });
      const days = await call('PUT', `${BASE}/${record.id}`, { rotation_reminder_days: 60, notes: 'rotate with care' });
      assert.equal(days.statusCode, 200, days.body);
      assert.equal(days.json().next_rotation_date, daysFrom(NOW, 60));
      assert.equal(days.json().notes, 'rotate with care');
      assert.equal(days.json().updated_by, admin.id);

      const rotatedAt = daysFrom(NOW, -10);
      const rotated = (await call('PUT', `${BASE}/${record.id}`, { last_rotated_at: rotatedAt })).json();
      assert.equal(rotated.last_rotated_at, rotatedAt);
      assert.equal(rotated.next_rotation_date, daysFrom(NOW, 50));
      assert.equal(rotated.key_prefix, 'sk-ant-…');
      assert.equal((await call('PUT', `${BASE}/${record.id}`, { notes: null })).json().notes, null);
      const actions = (await adminActivity()).filter((e) => e.target_id === record.id).map((a) => a.action);
      assert.deepEqual(actions.sort(), [
        'provider_key.create',
        'provider_key.rotate',
        'provider_key.update',
        'provider_key.update',
      ]);
    });

    it('replaces the key material and marks the key rotated now', async () => {
      const record = await create({ provider: 'google', api_key: secretKey('AIzaSy') });
      const replacement = secretKey('AIzaSz');
      const response = await call('PUT', `${BASE}/${record.id}`, { api_key: replacement });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().last_rotated_at, NOW);
      assert.match(response.json().key_prefix, /^AIzaSz.…$/);
      assert.equal(response.json().key_prefix, `${replacement.slice(0, 7)}…`);
      assert.equal(response.json().next_rotation_date, daysFrom(NOW, 90));
      // The new material shows only sealed at rest.
      const [row] = await t.database.db.select().from(providerApiKeys).where(eq(providerApiKeys.id, record.id));
      assert.equal(
        t.platform.secretBox.open(row!.encryptedKey, {
          table: 'provider_api_keys',
          column: 'encrypted_key',
          row: record.id,
        }),
        replacement,
      );
      assert.ok(!response.body.includes(replacement));
    });

    it('refuses a rotation date in the future and out-of-range values', async () => {
      const record = await create({ provider: 'groq', api_key: secretKey('gsk_') });
      const future = assertIssue(
        await call('PUT', `${BASE}/${record.id}`, { last_rotated_at: daysFrom(NOW, 1) }),
        ['body', 'last_rotated_at'],
        'value_error',
      );
      assert.equal(future.msg, 'Value error, last_rotated_at cannot be in the future');
      assertIssue(
        await call('PUT', `${BASE}/${record.id}`, { last_rotated_at: 'last week' }),
        ['body', 'last_rotated_at'],
        'datetime_from_date_parsing',
      );
      assertIssue(
        await call('PUT', `${BASE}/${record.id}`, { rotation_reminder_days: 29 }),
        ['body', 'rotation_reminder_days'],
        'greater_than_equal',
      );
      assertIssue(
        await call('PUT', `${BASE}/${record.id}`, { rotation_reminder_days: 366 }),
        ['body', 'rotation_reminder_days'],
        'less_than_equal',
      );
      assertIssue(
        await call('PUT', `${BASE}/${record.id}`, { is_active: 'nope' }),
        ['body', 'is_active'],
        'bool_parsing',
      );
      const short = assertIssue(
        await call('PUT', `${BASE}/${record.id}`, { api_key: 'tooshort' }),
        ['body', 'api_key'],
        'string_too_short',
      );
      assert.equal(short.input, '**********');
    });

    it('answers 404 for an unknown key and 422 uuid_parsing for a malformed id', async () => {
      assertDetail(await call('PUT', `${BASE}/${MISSING}`, { is_active: false }), 404, 'API key not found');
      const issue = assertIssue(
        await call('PUT', `${BASE}/not-a-uuid`, { is_active: false }),
        ['path', 'key_id'],
        'uuid_parsing',
      );
      assert.equal(issue.input, 'not-a-uuid');
      assert.match(issue.msg, /^Input should be a valid UUID, /);
      // A static path under the collection is not mistaken for a key id, nor is a key id for it.
      assertIssue(
        await call('PUT', `${BASE}/rotation-reminders`, { is_active: false }),
        ['path', 'key_id'],
        'uuid_parsing',
      );
    });
  });

  describe('delete', () => {
    it('answers 204 with no body, then 404', async () => {
      const record = await create({ provider: 'tavily', api_key: secretKey('tvly-') });
      const response = await call('DELETE', `${BASE}/${record.id}`);
      assert.equal(response.statusCode, 204);
      assert.equal(response.body, '');
      assertDetail(await call('DELETE', `${BASE}/${record.id}`), 404, 'API key not found');
      assertDetail(await call('PUT', `${BASE}/${record.id}`, { notes: 'x' }), 404);
      assertDetail(await call('POST', `${BASE}/${record.id}/test`), 404);
      const listed = (await call('GET', `${BASE}?include_inactive=true`)).json() as { id: string }[];
      assert.ok(!listed.some((k) => k.id === record.id), 'gone, not merely inactive');
      const deletions = (await adminActivity()).filter((e) => e.action === 'provider_key.delete');
      assert.deepEqual(
        deletions.map((e) => e.target_id),
        [record.id],
      );
      assertIssue(await call('DELETE', `${BASE}/1234`), ['path', 'key_id'], 'uuid_parsing');
    });
  });

  describe('rotation reminders', () => {
    it('lists active keys overdue or due within 14 days, soonest first, with days_until_rotation', async () => {
      const make = async (provider: string, rotatedDaysAgo: number | null, days = 30) => {
        const record = await create({ provider, api_key: secretKey(), rotation_reminder_days: days });
        if (rotatedDaysAgo !== null)
          await call('PUT', `${BASE}/${record.id}`, { last_rotated_at: daysFrom(NOW, -rotatedDaysAgo) });
        return record.id as string;
      };
      const overdue = await make('openai', 40); // due 10 days ago
      const dueSoon = await make('anthropic', 20); // due in 10 days
      const dueToday = await make('google', 30); // due now
      const later = await make('mistral', 10); // due in 20 days: not yet
      const far = await make('groq', null, 90); // due in 90 days
      const inactive = await make('serper', 45);
      await call('PUT', `${BASE}/${inactive}`, { is_active: false });
      const mine = [overdue, dueSoon, dueToday, later, far, inactive];
      const only = <T extends { id: string }>(list: T[]) => list.filter((r) => mine.includes(r.id));

      const response = await call('GET', `${BASE}/rotation-reminders`);
      assert.equal(response.statusCode, 200, response.body);
      const reminders = only(response.json() as { id: string; days_until_rotation: number }[]);
      assert.deepEqual(
        reminders.map((r) => r.id),
        [overdue, dueToday, dueSoon],
      );
      assert.deepEqual(reminders[0], {
        id: overdue,
        provider: 'openai',
        key_prefix: 'sk-proj…',
        next_rotation_date: daysFrom(NOW, -10),
        days_until_rotation: -10,
      });
      assert.equal(reminders[1]!.days_until_rotation, 0);
      assert.equal(reminders[2]!.days_until_rotation, 10);
      const all = response.json() as { next_rotation_date: string }[];
      assert.ok(all.every((r) => r.next_rotation_date <= daysFrom(NOW, 14)));

      const module = t.modules.providerKeys;
      assert.deepEqual(
        only(await module.service.rotationReminders(new Date(NOW), 30)).map((r) => r.id),
        [overdue, dueToday, dueSoon, later],
      );
      assert.deepEqual(only(await module.service.rotationReminders(new Date(daysFrom(NOW, -25)))), []);
      assert.equal(only(await module.service.rotationReminders()).length, 3);
    });
  });
});
