import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createAdminModule } from '../../../src/modules/admin/index.ts';
import type { TradingSummary, TradingSummaryPort } from '../../../src/modules/admin/index.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { assertValidation, insertUsers } from './admin-fixtures.ts';

const USER_KEYS = [
  'accountBalance',
  'avatar',
  'createdAt',
  'email',
  'emailVerified',
  'firstName',
  'id',
  'lastLogin',
  'lastName',
  'role',
  'status',
  'subscriptionTier',
  'totalTrades',
  'twoFactorEnabled',
];

type ListedUser = { id: string; email: string; createdAt: string; status: string };

describe('admin: list users', () => {
  let t: TestApp;
  let admin: TestUser;
  const base = Date.parse('2025-01-01T00:00:00.000Z');
  const at = (minutes: number) => new Date(base + minutes * 60_000);

  before(async () => {
    t = await buildTestApp();
    admin = await signIn(t.app, t.database, { role: 'admin' });
    await insertUsers(t.database, [
      {
        email: 'ada@analytical.example',
        firstName: 'Ada',
        lastName: 'Lovelace',
        subscriptionTier: 'pro',
        createdAt: at(1),
      },
      {
        email: 'grace@navy.example',
        firstName: 'Grace',
        lastName: 'Hopper',
        role: 'admin',
        subscriptionTier: 'enterprise',
        createdAt: at(2),
      },
      { email: 'alan@bletchley.example', firstName: 'Alan', lastName: 'Turing', status: 'suspended', createdAt: at(3) },
      {
        email: 'gone@example.com',
        firstName: 'Gone',
        lastName: 'Away',
        status: 'deleted',
        deletedAt: at(5),
        createdAt: at(4),
      },
      { email: 'pct%sign@example.com', firstName: 'Per', lastName: 'Under_score', createdAt: at(5) },
      { email: 'back\\slash@example.com', firstName: 'Back', lastName: 'Slash', createdAt: at(6) },
      // Twenty users, five per creation time, so the id tiebreak decides part of the order.
      ...Array.from({ length: 20 }, (_, i) => ({
        email: `bulk-${String(i).padStart(2, '0')}@example.com`,
        createdAt: at(10 + Math.floor(i / 5)),
      })),
    ]);
  });
  after(async () => {
    await t.close();
  });

  const list = (query = '', headers = admin.headers) =>
    t.app.inject({ method: 'GET', url: `/api/admin/users${query}`, headers });

  it('answers the first page of 10 by default, with the total of users not deleted', async () => {
    const response = await list();
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.page, 1);
    assert.equal(body.limit, 10);
    assert.equal(body.total, 26); // 25 fixtures not deleted, and the signed-in admin
    assert.equal(body.users.length, 10);
    assert.equal(body.users[0].id, admin.id, 'the newest account comes first');
    assert.deepEqual(Object.keys(body.users[0]).sort(), USER_KEYS);
    assert.equal(body.users[0].totalTrades, 0);
    assert.equal(body.users[0].accountBalance, 0);
  });

  it('pages newest first with ties broken by id, never overlapping, and agreeing with total', async () => {
    const seen: ListedUser[] = [];
    let total = 0;
    for (let page = 1; page <= 5; page++) {
      const body = (await list(`?page=${page}&limit=7`)).json();
      total = body.total;
      seen.push(...body.users);
    }
    assert.equal(seen.length, total);
    assert.equal(new Set(seen.map((u) => u.id)).size, total);
    const expected = [...seen].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || (a.id < b.id ? 1 : -1));
    assert.deepEqual(
      seen.map((u) => u.id),
      expected.map((u) => u.id),
    );
    assert.ok(!seen.some((u) => u.status === 'deleted'), 'deleted users are not listed by default');
    const beyond = (await list('?page=99&limit=7')).json();
    assert.deepEqual(beyond.users, []);
    assert.equal(beyond.total, total);
  });

  it(
    'echoes the largest page exactly and refuses a larger ' + 'one with a 422, never a rounded echo (decision 098)',
    async () => {
      const last = await list('?page=1000000000&limit=100');
      assert.equal(last.statusCode, 200, last.body);
      assert.deepEqual([last.json().users, last.json().page, last.json().limit], [[], 1_000_000_000, 100]);
      assert.match(last.body, /"page":1000000000,/);
      const [issue] = assertValidation(await list('?page=92233720368547758'), [
        { loc: ['query', 'page'], type: 'less_than_equal' },
      ]);
      assert.deepEqual(issue, {
        type: 'less_than_equal',
        loc: ['query', 'page'],
        msg: 'Input should be less than or equal to 1000000000',
        input: '92233720368547758',
        ctx: { le: 1_000_000_000 },
      });
    },
  );

  it('searches e-mail, first, last and full name as a case-insensitive substring', async () => {
    const emails = async (search: string) =>
      (await list(`?search=${encodeURIComponent(search)}`)).json().users.map((u: ListedUser) => u.email);
    assert.deepEqual(await emails('LOVELACE'), ['ada@analytical.example']);
    assert.deepEqual(await emails('ada lov'), ['ada@analytical.example']);
    assert.deepEqual(await emails('Navy.EX'), ['grace@navy.example']);
    assert.deepEqual(await emails('grac'), ['grace@navy.example']);
    const body = (await list('?search=bulk-1&limit=100')).json();
    assert.equal(body.total, 10);
  });

  it('finds an e-mail by its start, by a part within it and by a name, each account once', async () => {
    const found = async (search: string) => {
      const body = (await list(`?search=${encodeURIComponent(search)}&limit=100`)).json();
      return { emails: body.users.map((u: ListedUser) => u.email).sort(), total: body.total };
    };
    // The start of the e-mail, in any case.
    assert.deepEqual(await found('GRACE@'), { emails: ['grace@navy.example'], total: 1 });
    assert.deepEqual(await found('bulk-0'), {
      emails: Array.from({ length: 10 }, (_, i) => `bulk-0${i}@example.com`),
      total: 10,
    });
    // A part within it: the domain's middle, and a part every bulk account shares after its number.
    assert.deepEqual(await found('letchl'), { emails: ['alan@bletchley.example'], total: 1 });
    assert.equal((await found('@example.c')).total, 23); // the 20 bulk accounts, two fixtures and the admin's
    // A name: the first, the last, "first last" across the space, and nothing across "last first".
    assert.deepEqual(await found('alan'), { emails: ['alan@bletchley.example'], total: 1 });
    assert.deepEqual(await found('hopp'), { emails: ['grace@navy.example'], total: 1 });
    assert.deepEqual(await found('ace hop'), { emails: ['grace@navy.example'], total: 1 });
    assert.deepEqual(await found('hopper grace'), { emails: [], total: 0 });
    // An account that matches by its e-mail and by its name is listed once.
    assert.deepEqual(await found('ada'), { emails: ['ada@analytical.example'], total: 1 });
  });

  it("pages a search's matches newest first, ties by id, with the total of all of them", async () => {
    const seen: ListedUser[] = [];
    for (let page = 1; page <= 4; page++) {
      const body = (await list(`?search=BULK-&page=${page}&limit=6`)).json();
      assert.equal(body.total, 20);
      assert.equal(body.page, page);
      seen.push(...body.users);
    }
    assert.equal(seen.length, 20);
    assert.equal(new Set(seen.map((u) => u.id)).size, 20);
    const expected = [...seen].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || (a.id < b.id ? 1 : -1));
    assert.deepEqual(
      seen.map((u) => u.id),
      expected.map((u) => u.id),
    );
    const beyond = (await list('?search=bulk-&page=5&limit=6')).json();
    assert.deepEqual([beyond.users, beyond.total], [[], 20]);
    const none = (await list('?search=nobody-has-this')).json();
    assert.deepEqual([none.users, none.total], [[], 0]);
  });

  it('the search has its trigram indexes, made at start where pg_trgm exists', async () => {
    const rows = await t.database.rows<{ indexname: string; indexdef: string }>(
      sql`SELECT indexname, indexdef FROM pg_indexes
        WHERE tablename = 'users' AND indexdef LIKE '%gin_trgm_ops%'
        ORDER BY indexname`,
    );
    assert.deepEqual(
      rows.map((r) => r.indexname),
      ['users_email_trgm_idx', 'users_full_name_trgm_idx'],
    );
    assert.match(rows[1]!.indexdef, /first_name.*last_name/);
  });

  it('treats %, _ and \\ in the search as plain characters', async () => {
    const emails = async (search: string) =>
      (await list(`?search=${encodeURIComponent(search)}`)).json().users.map((u: ListedUser) => u.email);
    assert.deepEqual(await emails('%'), ['pct%sign@example.com']);
    assert.deepEqual(await emails('_'), ['pct%sign@example.com']);
    assert.deepEqual(await emails('\\'), ['back\\slash@example.com']);
    assert.deepEqual(await emails('a%b'), []);
  });

  it('filters by role, tier and status; deleted users only when asked for', async () => {
    const emails = async (query: string) =>
      (await list(`${query}&limit=100`))
        .json()
        .users.map((u: ListedUser) => u.email)
        .sort();
    assert.deepEqual(await emails('?role=admin'), [admin.email, 'grace@navy.example'].sort());
    assert.deepEqual(await emails('?subscriptionTier=enterprise'), ['grace@navy.example']);
    assert.deepEqual(await emails('?status=suspended'), ['alan@bletchley.example']);
    assert.deepEqual(await emails('?status=deleted'), ['gone@example.com']);
    assert.deepEqual(await emails('?search=gone'), []);
    assert.deepEqual(await emails('?search=gone&status=deleted'), ['gone@example.com']);
    assert.deepEqual(await emails('?role=admin&subscriptionTier=pro'), []);
    assert.equal((await list('?status=active&limit=100')).json().total, 25);
  });

  it('reports every invalid parameter in the Pydantic shape', async () => {
    const detail = assertValidation(await list('?page=0&limit=101&role=owner&status=gone&subscriptionTier=gold'), [
      { loc: ['query', 'page'], type: 'greater_than_equal' },
      { loc: ['query', 'limit'], type: 'less_than_equal' },
      { loc: ['query', 'role'], type: 'enum' },
      { loc: ['query', 'status'], type: 'enum' },
      { loc: ['query', 'subscriptionTier'], type: 'enum' },
    ]);
    assert.deepEqual(detail[0], {
      type: 'greater_than_equal',
      loc: ['query', 'page'],
      msg: 'Input should be greater than or equal to 1',
      input: '0',
      ctx: { ge: 1 },
    });
    assert.deepEqual(detail[1], {
      type: 'less_than_equal',
      loc: ['query', 'limit'],
      msg: 'Input should be less than or equal to 100',
      input: '101',
      ctx: { le: 100 },
    });
    assert.equal(detail[2]!.msg, "Input should be 'user' or 'admin'");
    assert.equal(detail[4]!.msg, "Input should be 'free', 'basic', 'pro' or 'enterprise'");
    assertValidation(await list('?limit=0'), [{ loc: ['query', 'limit'], type: 'greater_than_equal' }]);
    assertValidation(await list('?limit=ten'), [{ loc: ['query', 'limit'], type: 'int_parsing' }]);
    assertValidation(await list(`?search=${'x'.repeat(255)}`), [{ loc: ['query', 'search'], type: 'string_too_long' }]);
  });

  // How the port is asked (its figures read in the page's own statement, summarized once per page),
  // with a stand-in; the figures through the real exchange module, as app.ts wires it, are checked in
  // users-trading.test.ts.
  it("reads the port's figures in the page's statement and summarizes them once per page", async () => {
    const summarized: unknown[][] = [];
    const summaryOf = (id: unknown): TradingSummary =>
      id === admin.id ? { totalTrades: 42, accountBalance: 1234.5 } : { totalTrades: 0, accountBalance: 0 };
    const summaries: TradingSummaryPort = {
      async forUsers(ids) {
        return new Map(ids.map((id) => [id, summaryOf(id)]));
      },
      // The figure of a row is its own id, as the database read it.
      figuresOf: (userId) => sql`${userId}::text`,
      async summarize(figures) {
        summarized.push([...figures]);
        return figures.map(summaryOf);
      },
    };
    const { users, webhooks, notifications } = t.modules;
    const module = createAdminModule(t.platform, {
      users,
      revenueByCurrency: webhooks.revenueByCurrency,
      messages: notifications.messages,
      trading: summaries,
    });
    const page = await module.users.listUsers({ page: 1, limit: 3 });
    assert.equal(summarized.length, 1);
    assert.deepEqual(
      summarized[0],
      page.users.map((u) => u.id),
    );
    assert.deepEqual([page.users[0]!.totalTrades, page.users[0]!.accountBalance], [42, 1234.5]);
    assert.deepEqual([page.users[1]!.totalTrades, page.users[1]!.accountBalance], [0, 0]);
    assert.equal((await module.users.getUser(admin.id)).totalTrades, 42);
  });
});
