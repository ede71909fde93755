// Every documented operation, asked by each kind of caller at once: anonymous, a signed-in user who
// is not an admin, a suspended user, and API tokens with and without the operation's scope
// (`x-scopes`). Each must answer as the operation's `security` in
// /openapi.json says, so a route added without its guard (or documented without one) fails here,
// whoever wrote it. The guards document themselves (documentGuard), so the document is the code's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOCAL_DEFAULT_TEAM } from '../../../src/modules/tracker/adapters/local-tracker-backend.ts';
import { operationsOf, plausibleUrl, sample, type Known, type Operation } from '../../helpers/hostile-requests.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { SECRETS } from '../../modules/webhooks/webhooks-kit.ts';
import { startVenueFakes, type VenueFakes } from '../../modules/exchange/venue-fakes.ts';

const JOB_SECRET = 'authorization-sweep-job-secret-0123456789';

type Requirement = 'public' | 'user' | 'admin' | 'job' | 'signed';

/** What the document says an operation needs. */
function requirementOf(security: Record<string, string[]>[] | undefined): Requirement {
  if (!security || security.length === 0 || security.some((alternative) => Object.keys(alternative).length === 0))
    return 'public';
  const schemes = security.flatMap((alternative) => Object.entries(alternative));
  if (schemes.some(([name, roles]) => name === 'bearerAuth' && roles.includes('admin'))) return 'admin';
  if (schemes.some(([name]) => name === 'bearerAuth')) return 'user';
  if (schemes.some(([name]) => name === 'scheduledJobSecret')) return 'job';
  return 'signed';
}

interface Documented extends Operation {
  requirement: Requirement;
  /** The scope an API token needs (`x-scopes`); none: tokens may not call it. */
  scope: string | undefined;
}

describe('authorization on every documented operation', () => {
  let t: TestApp;
  let venues: VenueFakes;
  let admin: TestUser;
  let member: TestUser;
  let suspended: TestUser;
  let operations: Documented[];
  let known: Known;

  before(async () => {
    venues = await startVenueFakes();
    t = await buildTestApp({
      env: venues.env({ SCHEDULED_JOB_SECRET: JOB_SECRET, MARKET_DATA_SOURCE: 'simulated', ...SECRETS }),
    });
    admin = await signIn(t.app, t.database, { role: 'admin' });
    member = await signIn(t.app, t.database);
    suspended = await signIn(t.app, t.database);
    const response = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/users/${suspended.id}`,
      payload: { status: 'suspended' },
      headers: admin.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    known = {
      teamId: LOCAL_DEFAULT_TEAM.id,
      symbol: 'BTCUSDT',
      symbols: 'BTCUSDT',
      user_id: member.id,
      userId: member.id,
      email: member.email,
    };
    const document = t.app.swagger() as {
      paths: Record<string, Record<string, { security?: Record<string, string[]>[]; 'x-scopes'?: string[] }>>;
    };
    operations = operationsOf(document).map((operation) => {
      const documented = document.paths[operation.path]![operation.method.toLowerCase()]!;
      return { ...operation, requirement: requirementOf(documented.security), scope: documented['x-scopes']?.[0] };
    });
  });
  after(async () => {
    await t.close();
    await venues.close();
  });

  const ask = (operation: Operation, headers: Record<string, string>) =>
    t.app.inject({
      method: operation.method as 'GET',
      url: plausibleUrl(operation, known),
      headers: operation.body ? { ...headers, 'content-type': 'application/json' } : headers,
      payload: operation.body ? JSON.stringify(sample(operation.body, known)) : undefined,
    });
  const where = (operation: Operation, status: number, body: string) =>
    `${operation.method} ${operation.path} → ${status} ${body.slice(0, 120)}`;
  /** An open stream would hold inject() until it ends; the streams' own tests open them over sockets. */
  const opensAStream = (operation: Operation) =>
    operation.method === 'GET' && ['/api/v1/market/stream', '/api/stream'].includes(operation.path);

  it('documents every route the app serves, each with a known kind of security', async () => {
    const documented = new Set(operations.map((op) => `${op.method} ${op.path}`));
    const served = t.routeCatalog
      .filter((route) => !route.hidden && route.method !== 'HEAD')
      .map((route) => `${route.method} ${route.url.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
    assert.deepEqual(
      served.filter((route) => !documented.has(route)),
      [],
      'served but not documented',
    );
    const counts = Object.fromEntries(
      (['public', 'user', 'admin', 'job', 'signed'] as const).map((kind) => [
        kind,
        operations.filter((op) => op.requirement === kind).length,
      ]),
    );
    // The positive control of the sweep below: each kind is really there to be checked.
    for (const [kind, count] of Object.entries(counts))
      assert.ok(count > 0, `no ${kind} operation found: ${JSON.stringify(counts)}`);
  });

  it('anonymous: 401 wherever a token is required, never 401 or 403 where the operation is public', async () => {
    const failures: string[] = [];
    for (const operation of operations) {
      if (operation.requirement === 'public' && opensAStream(operation)) continue;
      const response = await ask(operation, {});
      const line = where(operation, response.statusCode, response.body);
      if (operation.requirement === 'user' || operation.requirement === 'admin') {
        if (response.statusCode !== 401 || response.json().detail !== 'Not authenticated')
          failures.push(`not 401 Not authenticated: ${line}`);
      } else if (operation.requirement === 'job') {
        if (response.statusCode !== 422) failures.push(`a trigger without its secret header is not 422: ${line}`);
        const wrong = await ask(operation, { 'x-scheduled-job-secret': 'not-the-secret' });
        if (wrong.statusCode !== 401)
          failures.push(`a wrong job secret is not 401: ${where(operation, wrong.statusCode, wrong.body)}`);
      } else if (operation.requirement === 'signed') {
        if (response.statusCode !== 401) failures.push(`an unsigned delivery is not 401: ${line}`);
      } else if (
        response.statusCode === 403 ||
        (response.statusCode === 401 && response.json().detail === 'Not authenticated')
      ) {
        // A public operation may still refuse what its body carries (a wrong password at login).
        failures.push(`public but refused: ${line}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  it('a signed-in user who is not an admin: 403 on admin operations, let through on the others', async () => {
    const failures: string[] = [];
    // Signing out ends the session the other requests use: it goes last.
    const ordered = [...operations].sort(
      (a, b) => Number(a.path === '/api/auth/logout') - Number(b.path === '/api/auth/logout'),
    );
    for (const operation of ordered) {
      if (operation.requirement !== 'user' && operation.requirement !== 'admin') continue;
      if (opensAStream(operation)) continue;
      const response = await ask(operation, member.headers);
      const line = where(operation, response.statusCode, response.body);
      if (
        operation.requirement === 'admin' &&
        (response.statusCode !== 403 || response.json().detail !== 'Admin role required')
      )
        failures.push(`not 403 Admin role required: ${line}`);
      if (operation.requirement === 'user' && (response.statusCode === 401 || response.statusCode === 403))
        failures.push(`a user's operation refused a user: ${line}`);
    }
    assert.deepEqual(failures, []);
  });

  it('a suspended user: 403 on every operation that needs a token', async () => {
    const failures: string[] = [];
    for (const operation of operations) {
      if (operation.requirement !== 'user' && operation.requirement !== 'admin') continue;
      const response = await ask(operation, suspended.headers);
      if (response.statusCode !== 403 || response.json().detail !== 'User account is suspended') {
        failures.push(`not 403 User account is suspended: ${where(operation, response.statusCode, response.body)}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  /** An API token of `owner` holding `scopes`, made through the API (admin scopes for an admin's). */
  async function apiToken(owner: TestUser, scopes: string[]): Promise<Record<string, string>> {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/auth/tokens',
      headers: owner.headers,
      payload: { name: `sweep, ${scopes.length} scopes`, scopes },
    });
    assert.equal(response.statusCode, 201, response.body);
    return { authorization: `Bearer ${response.json().token}` };
  }

  it(
    'an API token: 403 naming the missing scope outside its scopes, 403 where no token ' +
      'may go, let through within them',
    async () => {
      const tokened = operations.filter(
        (op) =>
          (op.requirement === 'user' || op.requirement === 'admin') &&
          !opensAStream(op) &&
          op.path !== '/api/auth/logout',
      );
      const scopes = [
        ...new Set(tokened.map((op) => op.scope).filter((scope): scope is string => Boolean(scope))),
      ].sort();
      // The positive control: the document names scopes, and some operations admit no token at all.
      assert.ok(scopes.length >= 6, `scopes named: ${scopes.join(', ')}`);
      assert.ok(
        tokened.some((op) => op.scope === undefined),
        'some operations admit no token',
      );
      const failures: string[] = [];
      // A token holding one scope that is not the one asked for, and one holding every scope there is.
      const other = (scope: string | undefined) => (scope === 'market:read' ? 'tracker:read' : 'market:read');
      const narrow = {
        'market:read': await apiToken(admin, ['market:read']),
        'tracker:read': await apiToken(admin, ['tracker:read']),
      };
      const broad = await apiToken(admin, scopes);
      for (const operation of tokened) {
        const refused = await ask(operation, narrow[other(operation.scope)]);
        const line = where(operation, refused.statusCode, refused.body);
        if (operation.scope === undefined) {
          if (
            refused.statusCode !== 403 ||
            !/^API tokens cannot be used for this operation/.test(refused.json().detail)
          )
            failures.push(`a token is not refused where none may go: ${line}`);
          continue;
        }
        if (refused.statusCode !== 403 || refused.json().detail !== `This API token lacks the scope ${operation.scope}`)
          failures.push(`not 403 naming ${operation.scope}: ${line}`);
        const allowed = await ask(operation, broad);
        if (allowed.statusCode === 401 || allowed.statusCode === 403)
          failures.push(
            `a token holding ${operation.scope} was refused: ${where(operation, allowed.statusCode, allowed.body)}`,
          );
      }
      assert.deepEqual(failures, []);
    },
  );
});
