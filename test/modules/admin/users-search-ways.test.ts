// The admin search reaches its page by one of three ways (decisions 310 and 355): from all its
// matches, by the name's words (a term with a space), or along the creation order until it has the
// page and the total's bound (bounded or not). Each must answer the same page and total as a plain
// `ORDER BY created_at DESC, id DESC OFFSET … LIMIT …` and a count capped at SEARCH_TOTAL_BOUND; and
// the list must take the walk when most accounts match, and not when few do or when the matches are
// all among the oldest accounts (it gives up and reads the matches); read a rare full name by its
// words; and walk, without a budget, for a term without a trigram.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createAccountsRepository } from '../../../src/modules/users/accounts.repository.ts';
import type { SearchFilter } from '../../../src/modules/users/accounts-list.repository.ts';
import { SEARCH_TOTAL_BOUND } from '../../../src/modules/users/accounts-search.ts';
import { plansOf, rowsRead, type PlanNode } from '../../helpers/plans.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { expectedPage, shown } from './search-oracle.ts';

/** Accounts `walk-{i}@common.example`, newest last; every tenth one is named `Rare{i}`. */
const ACCOUNTS = 6_000;
/** Older than all of them: `early-{i}@early.example`, a term none of the others matches. */
const EARLY = 4_000;
/** Among the others: names with a space within a first or last name, and short two-word names. */
const NAMED = 90;

describe('admin search: both ways answer the same page and total', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp();
    // Several accounts per instant (the id decides their order) and every status: the deleted are
    // not matched, the suspended are.
    await t.database.db.execute(sql`
      INSERT INTO users (email, password_hash, first_name, last_name, status, created_at)
      SELECT 'early-' || i || '@early.example', 'unusable', 'Early', 'Bird',
        (ARRAY['active', 'suspended'])[1 + i % 2],
        timestamptz '2024-01-01T00:00:00Z' + (i / 3) * interval '1 minute'
      FROM generate_series(1, ${EARLY}) AS i`);
    await t.database.db.execute(sql`
      INSERT INTO users (email, password_hash, first_name, last_name, status, created_at)
      SELECT 'walk-' || i || '@common.example', 'unusable',
        CASE WHEN i % 10 = 0 THEN 'Rare' || i ELSE 'Plain' END, 'Person',
        (ARRAY['active', 'active', 'suspended', 'active', 'deleted', 'active', 'active'])[1 + i % 7],
        timestamptz '2025-01-01T00:00:00Z' + (i / 4) * interval '1 minute'
      FROM generate_series(1, ${ACCOUNTS}) AS i`);
    await t.database.db.execute(sql`
      INSERT INTO users (email, password_hash, first_name, last_name, status, created_at)
      SELECT 'named-' || i || '@named.example', 'unusable',
        (ARRAY['Mary Ann', 'Jo', 'Anne-Marie'])[1 + i % 3],
        (ARRAY['van der Berg' || i, 'Smith', 'Le Rare' || i])[1 + (i / 3) % 3],
        (ARRAY['active', 'active', 'deleted'])[1 + (i / 9) % 3],
        timestamptz '2025-01-01T00:00:00Z' + (i * 13) * interval '1 minute'
      FROM generate_series(1, ${NAMED}) AS i`);
    // The planner's estimate picks the way: it needs the table's statistics, as autovacuum keeps them.
    await t.database.db.execute(sql`ANALYZE users`);
  });
  after(() => t.close());

  const repo = () => createAccountsRepository(t.database.db);

  /** The page and total as plain SQL says: every match, ordered, counted and capped. */
  async function expected(pattern: string, offset: number, limit: number) {
    const where = sql`status <> 'deleted' AND (email ILIKE ${pattern} OR (first_name || ' ' || last_name) ILIKE ${pattern})`;
    return expectedPage(t.database.db, where, offset, limit);
  }

  const cases: { search: string; pattern: string; offset: number; limit: number }[] = [];
  for (const [offset, limit] of [
    [0, 50],
    [980, 40], // across the total's bound
    [1_500, 100], // past it: the page is still exact
    [5_100, 100], // the last rows
    [9_000, 10], // past the end
  ] as const) {
    cases.push({ search: 'COMMON.example', pattern: '%common.example%', offset, limit });
  }
  cases.push({ search: 'rare2', pattern: '%rare2%', offset: 0, limit: 50 }); // few: by name
  cases.push({ search: 'rare', pattern: '%rare%', offset: 100, limit: 100 }); // under the bound: exact
  cases.push({ search: 'early.example', pattern: '%early.example%', offset: 0, limit: 50 }); // the oldest
  cases.push({ search: 'nobody-has-this', pattern: '%nobody-has-this%', offset: 0, limit: 10 });
  // With a space: across first and last name, within either, past both, several spaces, and a
  // common two-word name (more matches than the bound).
  for (const search of [
    'jo smith',
    'JO SMITH',
    'o smi',
    'rare20 person',
    'ann van',
    'mary ann van der berg1',
    'der berg1',
    'e le rare',
    'e-marie le',
    ' smith',
    'a b c',
    'nobody has this',
    'smith named',
    'plain person',
  ]) {
    cases.push({ search, pattern: `%${search}%`, offset: 0, limit: 50 });
  }
  cases.push({ search: 'plain person', pattern: '%plain person%', offset: 1_200, limit: 20 });
  cases.push({ search: 'jo smith', pattern: '%jo smith%', offset: 5, limit: 5 });
  // Without a trigram: short terms, a space or a LIKE character among few letters, nothing matched.
  for (const search of ['23', 'r', 'o s', '%', '_a', 'zq']) {
    cases.push({ search, pattern: `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, offset: 0, limit: 50 });
  }
  cases.push({ search: '23', pattern: '%23%', offset: 40, limit: 100 });

  it('answers the page and the capped total of plain SQL, by either way and by the list', async () => {
    for (const { search, pattern, offset, limit } of cases) {
      const filter: SearchFilter = { search };
      const want = await expected(pattern, offset, limit);
      const label = `${search} at ${offset}+${limit}`;
      assert.deepEqual(shown(await repo().list(filter, offset, limit)), { ids: want.ids, total: want.total }, label);
      assert.deepEqual(
        shown(await repo().searchFromMatches(filter, offset, limit)),
        { ids: want.ids, total: want.total },
        label,
      );
      // The walk, allowed the whole table, answers whenever the matches hold the page and the bound.
      const walked = await repo().searchAlongCreation(filter, offset, limit, ACCOUNTS + EARLY);
      if (want.matches >= Math.max(SEARCH_TOTAL_BOUND + 1, offset + limit)) {
        assert.deepEqual(walked && shown(walked), { ids: want.ids, total: want.total }, label);
      } else {
        assert.equal(walked, undefined, `${label}: the walk cannot prove a total under its bound`);
      }
      // Without a budget the walk may test every account, and then proves any total.
      const unbounded = await repo().searchAlongCreation(filter, offset, limit, undefined);
      assert.deepEqual(unbounded && shown(unbounded), { ids: want.ids, total: want.total }, label);
      const byWords = await repo().searchByNameWords(filter, offset, limit);
      if (/ ./.test(search)) {
        assert.deepEqual(byWords && shown(byWords), { ids: want.ids, total: want.total }, label);
      } else {
        assert.equal(byWords, undefined, `${label}: no word follows a space`);
      }
    }
  });

  it('counts up to the bound: a term more accounts match answers the bound', async () => {
    const { matches } = await expected('%common.example%', 0, 1);
    assert.ok(matches > SEARCH_TOTAL_BOUND, `${matches} matches`);
    const page = await repo().list({ search: 'common.example' }, 0, 50);
    assert.equal(page.total, SEARCH_TOTAL_BOUND);
    const rare = await expected('%rare%', 0, 1);
    assert.ok(rare.matches < SEARCH_TOTAL_BOUND && rare.matches > 100, `${rare.matches} matches`);
    assert.equal((await repo().list({ search: 'rare' }, 0, 50)).total, rare.matches);
  });

  /** The statements the list ran (its estimate aside), with the rows each read of users. */
  async function listed(search: string): Promise<{ ways: string[]; read: number[] }> {
    const plans = await plansOf(t, (db) => createAccountsRepository(db).list({ search }, 0, 50));
    return { ways: plans.map(wayOf), read: plans.map((plan) => rowsRead(plan, 'users')) };
  }

  it('walks the creation order when most accounts match, reading about the bound of them', async () => {
    const { ways, read } = await listed('common.example');
    assert.deepEqual(ways, ['walk']);
    // The bound's matches and the non-matching (deleted) accounts between them, and the page's 50.
    assert.ok(read[0]! < 1.3 * SEARCH_TOTAL_BOUND + 100, `${read[0]} rows read`);
  });

  it('reads the matches when few accounts match', async () => {
    assert.deepEqual((await listed('rare2')).ways, ['matches']);
    assert.deepEqual((await listed('rare')).ways, ['matches']);
  });

  it('reads a rare full name by its words, and a common one along the creation order', async () => {
    // Which indexes read the candidates is the planner's choice (a table this small is read whole).
    assert.deepEqual((await listed('jo smith')).ways, ['words']);
    assert.deepEqual((await listed('plain person')).ways, ['walk']);
  });

  it('walks the creation order, without a budget or an estimate, for a term without a trigram', async () => {
    for (const search of ['zq', 'n', 'o s']) {
      const statements = await plansOf(t, (db) => createAccountsRepository(db).list({ search }, 0, 50));
      assert.deepEqual(statements.map(wayOf), ['walk'], search);
    }
  });

  it('gives the walk up when the matches are all among the oldest accounts, after as many as it expects', async () => {
    const { ways, read } = await listed('early.example');
    assert.deepEqual(ways, ['walk', 'matches']);
    // The walk tests about as many of the newest accounts as it expects matches (4,000), and finds none.
    assert.ok(read[0]! <= 1.2 * EARLY, `${read[0]} rows read by the walk`);
  });
});

/**
 * Which way a list statement took: the walk reads the accounts in a subquery of its own (by their
 * creation-order index, or in a small table by a sort), the name's words keep their candidates apart.
 */
function wayOf(plan: PlanNode): string {
  const nodes: PlanNode[] = [];
  const visit = (node: PlanNode) => {
    nodes.push(node);
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(plan);
  const named = (node: PlanNode) => node as { 'Subplan Name'?: string };
  if (nodes.some((node) => node['Node Type'] === 'Subquery Scan')) return 'walk';
  return nodes.some((node) => named(node)['Subplan Name'] === 'CTE candidates') ? 'words' : 'matches';
}
