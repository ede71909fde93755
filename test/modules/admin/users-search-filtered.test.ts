// The admin search with a status, role or tier (decision 410). When most of the filter's accounts
// match the term, the list walks those accounts along their index's date order and stops at the
// total's bound, under the one plan made for any value, instead of reading every match; the ways that
// read the matches run where plans are made for their values (decision 401). Every way answers the
// page and the capped total of plain SQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createAccountsRepository } from '../../../src/modules/users/accounts.repository.ts';
import type { SearchFilter } from '../../../src/modules/users/accounts-list.repository.ts';
import { SEARCH_TOTAL_BOUND } from '../../../src/modules/users/accounts-search.ts';
import {
  executedPlan,
  planClient,
  type PlanClient,
  type PlanNode,
  recordingDb,
  rowsRead,
} from '../../helpers/plans.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { expectedPage, shown } from './search-oracle.ts';

/** `fw-{i}@filtered.example`, newest last: every eighth suspended, every ninth an admin. */
const ACCOUNTS = 16_000;
/** Older than all of them, all suspended: `aged-{i}@aged.example`. */
const AGED = 1_000;

/** A statement's value as an SQL literal: the list's values are texts and numbers. */
const literal = (value: unknown): string =>
  value === null ? 'NULL' : typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`;

describe('admin search with a filter: the walk goes through the filter’s accounts', () => {
  let t: TestApp;

  before(async () => {
    t = await buildTestApp();
    await t.database.db.execute(sql`
      INSERT INTO users (email, password_hash, first_name, last_name, status, created_at)
      SELECT 'aged-' || i || '@aged.example', 'unusable', 'Aged', 'Person', 'suspended',
        timestamptz '2024-01-01T00:00:00Z' + i * interval '1 minute'
      FROM generate_series(1, ${AGED}) AS i`);
    // Several accounts per instant (the id decides their order).
    await t.database.db.execute(sql`
      INSERT INTO users (email, password_hash, first_name, last_name, role, subscription_tier, status, created_at)
      SELECT 'fw-' || i || '@filtered.example', 'unusable', 'Filtered', 'Walker' || i,
        CASE WHEN i % 9 = 0 THEN 'admin' ELSE 'user' END,
        (ARRAY['free', 'pro', 'basic'])[1 + i % 3],
        CASE WHEN i % 8 = 0 THEN 'suspended' WHEN i % 13 = 0 THEN 'deleted' ELSE 'active' END,
        timestamptz '2025-01-01T00:00:00Z' + (i / 3) * interval '1 minute'
      FROM generate_series(1, ${ACCOUNTS}) AS i`);
    // The planner's estimate picks the way: it needs the table's statistics, as autovacuum keeps them.
    await t.database.db.execute(sql`ANALYZE users`);
  });
  after(() => t.close());

  const repo = () => createAccountsRepository(t.database.db);

  /** The page and total as plain SQL says: every match of the filter and the term, ordered, counted and capped. */
  async function expected(filter: SearchFilter, offset: number, limit: number) {
    const pattern = `%${filter.search}%`;
    const where = sql`${filter.status ? sql`status = ${filter.status}` : sql`status <> 'deleted'`}
      AND ${filter.role ? sql`role = ${filter.role}` : sql`true`}
      AND ${filter.subscriptionTier ? sql`subscription_tier = ${filter.subscriptionTier}` : sql`true`}
      AND (email ILIKE ${pattern} OR (first_name || ' ' || last_name) ILIKE ${pattern})`;
    return expectedPage(t.database.db, where, offset, limit);
  }

  it('answers the page and the capped total of plain SQL, by either way and by the list', async () => {
    const filters: Omit<SearchFilter, 'search'>[] = [
      { status: 'suspended' },
      { role: 'admin' },
      { status: 'suspended', role: 'user' },
      { subscriptionTier: 'pro' },
      { status: 'deleted' },
    ];
    // Pages across the total's bound, past it and past the end for the common term; the first page for the others.
    const pages = (search: string) =>
      search === 'filtered.example'
        ? ([
            [0, 50],
            [980, 40],
            [1_500, 100],
            [20_000, 10],
          ] as const)
        : ([[0, 50]] as const);
    for (const base of filters) {
      for (const search of ['filtered.example', 'AGED.example', 'walker12', 'nobody-has-this']) {
        for (const [offset, limit] of pages(search)) {
          const filter: SearchFilter = { ...base, search };
          const want = await expected(filter, offset, limit);
          const label = `${JSON.stringify(filter)} at ${offset}+${limit}`;
          const page = { ids: want.ids, total: want.total };
          assert.deepEqual(shown(await repo().list(filter, offset, limit)), page, label);
          assert.deepEqual(shown(await repo().searchFromMatches(filter, offset, limit)), page, label);
          const walked = await repo().searchAlongCreation(filter, offset, limit, ACCOUNTS + AGED);
          if (want.matches >= Math.max(SEARCH_TOTAL_BOUND + 1, offset + limit)) {
            assert.deepEqual(walked && shown(walked), page, label);
          } else {
            assert.equal(walked, undefined, `${label}: the walk cannot prove a total under its bound`);
          }
          const unbounded = await repo().searchAlongCreation(filter, offset, limit, undefined);
          assert.deepEqual(unbounded && shown(unbounded), page, label);
        }
      }
    }
  });

  it('gives the walk up when the newest of the filter’s accounts within its budget hold too few matches', async () => {
    // The 2,000 newest suspended accounts are all `filtered.example`; the aged ones come after them.
    const filter: SearchFilter = { search: 'aged.example', status: 'suspended' };
    assert.equal(await repo().searchAlongCreation(filter, 0, 50, 2_000), undefined);
    assert.equal((await repo().list(filter, 0, 50)).total, AGED);
  });

  /**
   * The statements the list ran, as it ran them: those before `SET LOCAL plan_cache_mode` under the
   * one plan for any value (each prepared and run under EXPLAIN ANALYZE with the setting the app's
   * connections have), those after it planned for their values. The planner's estimate (an EXPLAIN),
   * the setting and the transaction's own statements are left out.
   */
  async function listedUnderItsPlans(filter: SearchFilter): Promise<{ plans: PlanNode[]; forValues: boolean[] }> {
    const client = planClient(t);
    const { db, statements } = recordingDb(t);
    await createAccountsRepository(db).list(filter, 0, 50);
    // One connection for PREPARE and EXECUTE: the pool's own on PostgreSQL, PGlite's only one.
    const pool = client as unknown as { connect?: () => Promise<PlanClient & { release(): void }> };
    const conn = t.database.kind === 'postgres' && pool.connect ? await pool.connect() : undefined;
    const on: PlanClient = conn ?? client;
    const plans: PlanNode[] = [];
    const forValues: boolean[] = [];
    let custom = false;
    try {
      await on.query('SET plan_cache_mode = force_generic_plan');
      for (const { query, params } of statements) {
        const text = query.trim();
        if (/^SET LOCAL plan_cache_mode = force_custom_plan$/.test(text)) custom = true;
        if (!/^WITH\b/i.test(text)) continue;
        forValues.push(custom);
        if (custom) {
          plans.push(await executedPlan(on, text, params));
          continue;
        }
        await on.query(`PREPARE listed AS ${text}`);
        try {
          // EXECUTE takes its values as literals (a utility statement has no bound parameters).
          const args = params.map(literal).join(', ');
          const { rows } = await on.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
            `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE listed${args ? `(${args})` : ''}`,
          );
          plans.push(rows[0]!['QUERY PLAN'][0].Plan);
        } finally {
          await on.query('DEALLOCATE listed');
        }
      }
    } finally {
      await on.query('RESET plan_cache_mode');
      conn?.release();
    }
    return { plans, forValues };
  }

  for (const [name, filter, accounts] of [
    ['a status', { search: 'filtered.example', status: 'suspended' as const }, ACCOUNTS / 8 + AGED],
    ['a role', { search: 'filtered.example', role: 'admin' as const }, Math.floor(ACCOUNTS / 9)],
  ] as const) {
    it(`with ${name} most of whose accounts match: walks them to the bound under the one plan`, async () => {
      const { plans, forValues } = await listedUnderItsPlans(filter);
      const read = plans.reduce((sum, plan) => sum + rowsRead(plan, 'users'), 0);
      // The bound's matches, the deleted among them, and the page's 50: not every one of the filter's accounts.
      assert.ok(read < 1.3 * SEARCH_TOTAL_BOUND + 100, `read ${read} accounts of ${accounts}`);
      assert.deepEqual(forValues, [false], 'one statement, the walk, planned for any value');
      const want = await expected(filter, 0, 50);
      assert.equal(want.total, SEARCH_TOTAL_BOUND);
      assert.deepEqual(shown(await repo().list(filter, 0, 50)), { ids: want.ids, total: want.total });
    });
  }

  it('with a filter few of whose accounts match: reads the matches under a plan made for the values', async () => {
    const { forValues } = await listedUnderItsPlans({ search: 'walker12', status: 'suspended' });
    assert.deepEqual(forValues, [true]);
  });
});
