// No request body can set what its operation does not document. Every operation of the OpenAPI
// document with a JSON body is sent a valid body plus undeclared fields named like other operations'
// fields and the tables' columns (`role`, `status`, `user_id`, `id`, `is_active`, `created_by`, ...),
// at the top and one level down. Afterwards no row holds any of their values, the account they name
// is untouched and no admin appeared; read back through the API where it shows it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { LOCAL_DEFAULT_TEAM } from '../../../src/modules/tracker/adapters/local-tracker-backend.ts';
import {
  operationsOf,
  plausibleUrl,
  sample,
  withFixtures,
  type JsonSchema,
  type Known,
  type Operation,
} from '../../helpers/hostile-requests.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { startVenueFakes, type VenueFakes } from '../../modules/exchange/venue-fakes.ts';

const JOB_SECRET = 'undeclared-fields-job-secret-0123456789';
/** The value every undeclared text field carries: found anywhere in the database, it was stored. */
const MARKER = 'undeclared-7f3a9c';

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** What an attacker would put in a field of that name. */
function hostileValue(name: string, victim: string): unknown {
  const key = snake(name);
  if (/(^|_)(user|owner|actor|assignee|created_by|updated_by|subject_user|target)(_id)?$/.test(key) || key === 'id')
    return victim;
  if (key === 'role') return 'admin';
  if (key === 'status') return 'suspended';
  if (key === 'subscription_tier' || key === 'tier') return 'enterprise';
  if (/^(is|has|email|two_factor)_/.test(key) || /_(enabled|verified|active)$/.test(key)) return key !== 'is_active';
  if (/(_at|_date)$/.test(key)) return '2001-01-01T00:00:00.000Z';
  if (/(count|version|attempts|limit|priority)$/.test(key)) return 99_999;
  return MARKER;
}

const propertiesOf = (schema: JsonSchema | undefined): Record<string, JsonSchema> => {
  const object = schema && !schema.properties ? (schema.anyOf ?? schema.oneOf)?.find((s) => s.properties) : schema;
  return object?.properties ?? {};
};

describe('undeclared body fields on every operation', () => {
  let t: TestApp;
  let venues: VenueFakes;
  let admin: TestUser;
  let victim: TestUser;
  let known: Known;
  let names: string[];
  let markerQuery: ReturnType<typeof sql.raw>;
  let victimQuery: ReturnType<typeof sql.raw>;

  before(async () => {
    venues = await startVenueFakes();
    t = await buildTestApp({ env: venues.env({ SCHEDULED_JOB_SECRET: JOB_SECRET, MARKET_DATA_SOURCE: 'simulated' }) });
    admin = await signIn(t.app, t.database, { role: 'admin' });
    const member = await signIn(t.app, t.database);
    victim = await signIn(t.app, t.database);
    // A fresh address, so sign-up creates an account (the operation the review broke).
    const base = {
      teamId: LOCAL_DEFAULT_TEAM.id,
      symbol: 'BTCUSDT',
      symbols: 'BTCUSDT',
      user_id: member.id,
      userId: member.id,
      userIds: [member.id],
      email: 'newcomer@example.com',
    };
    known = await withFixtures(t.app, admin.headers, base);
    const columns = await t.database.rows<{ column_name: string }>(
      sql`SELECT DISTINCT column_name FROM information_schema.columns WHERE table_schema = 'public'`,
    );
    const bodyFields = operationsOf(t.app.swagger()).flatMap((op) => Object.keys(propertiesOf(op.body)));
    names = [...new Set([...columns.flatMap((c) => [c.column_name, camel(c.column_name)]), ...bodyFields])].sort();
    const tables = (
      await t.database.rows<{ tablename: string }>(
        sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
      )
    ).map((r) => r.tablename);
    const count = (where: string) =>
      sql.raw(
        `SELECT ${tables
          .map((name) => `(SELECT count(*) FROM "${name}" t WHERE t::text LIKE '%${where}%')`)
          .join(' + ')} AS n`,
      );
    markerQuery = count(MARKER);
    victimQuery = count(victim.id);
  });
  after(async () => {
    await t.close();
    await venues.close();
  });

  const rowsWith = async (query: ReturnType<typeof sql.raw>) =>
    Number((await t.database.rows<{ n: string }>(query))[0]!.n);
  const victimAccount = async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/admin/users/${victim.id}`,
      headers: admin.headers,
    });
    const { role, status, subscriptionTier, emailVerified, twoFactorEnabled } = response.json();
    return { role, status, subscriptionTier, emailVerified, twoFactorEnabled };
  };
  const admins = async () =>
    (await t.app.inject({ method: 'GET', url: '/api/admin/users?role=admin&limit=100', headers: admin.headers })).json()
      .total as number;

  /** The valid sample with every undeclared name added, at the top and inside each object it declares. */
  function withUndeclared(operation: Operation): Record<string, unknown> {
    const declared = propertiesOf(operation.body);
    const body = sample(operation.body!, known) as Record<string, unknown>;
    const extras = (taken: Record<string, unknown>) =>
      Object.fromEntries(names.filter((name) => !(name in taken)).map((name) => [name, hostileValue(name, victim.id)]));
    for (const [name, value] of Object.entries(body)) {
      const inner = propertiesOf(declared[name]);
      if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(inner).length > 0)
        body[name] = { ...extras(inner), ...value };
    }
    return { ...extras(declared), ...body };
  }

  it('the checks below can see a stored value (positive control)', async () => {
    const before = await rowsWith(markerQuery);
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/admin/command-center/tasks',
      headers: admin.headers,
      payload: { title: `declared ${MARKER}` },
    });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(await rowsWith(markerQuery), before + 1, 'a declared field carrying the marker is found');
  });

  it('no undeclared field reaches a row, the account it names, or the admins', async () => {
    const operations = operationsOf(t.app.swagger()).filter(
      // Provider payloads are open by design (signed, stored as sent); signing out would end the admin session.
      (op) => op.body && !op.path.startsWith('/api/webhooks/') && op.path !== '/api/auth/logout',
    );
    assert.ok(operations.length >= 20, `only ${operations.length} operations with a body`);
    const victimBefore = await victimAccount();
    const adminsBefore = await admins();
    const markersBefore = await rowsWith(markerQuery);
    const victimRowsBefore = await rowsWith(victimQuery);
    const failures: string[] = [];
    let accepted = 0;
    for (const operation of operations) {
      const response = await t.app.inject({
        method: operation.method as 'POST',
        url: plausibleUrl(operation, known),
        headers: { ...admin.headers, 'x-scheduled-job-secret': JOB_SECRET, 'content-type': 'application/json' },
        payload: JSON.stringify(withUndeclared(operation)),
      });
      if (response.statusCode < 300) accepted += 1;
      const where = `${operation.method} ${operation.path} → ${response.statusCode}`;
      if (response.statusCode >= 500) failures.push(`5xx: ${where} ${response.body.slice(0, 160)}`);
      if ((await rowsWith(markerQuery)) !== markersBefore) failures.push(`stored an undeclared value: ${where}`);
      if ((await rowsWith(victimQuery)) !== victimRowsBefore)
        failures.push(`a row now names the account of an undeclared field: ${where}`);
    }
    assert.deepEqual(failures, []);
    assert.ok(accepted >= 15, `only ${accepted} operations accepted their sample: the sweep proves too little`);
    assert.deepEqual(await victimAccount(), victimBefore);
    assert.equal(await admins(), adminsBefore);
  });
});
