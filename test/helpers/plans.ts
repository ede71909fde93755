// What a repository's statements read: each statement it runs is captured (a Drizzle logger on the
// test app's own client), then run again under EXPLAIN ANALYZE, and the rows its scans of one table
// read are counted. A cost that grows with the table shows as rows read, whatever the machine's speed.
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres';
import type { Db } from '../../src/platform/db/database.ts';
import type { TestApp } from './test-app.ts';

export interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** PGlite, or the pg pool on PostgreSQL: both answer query(text, params) with rows. */
export type PlanClient = { query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }> };

export function planClient(t: TestApp): PlanClient {
  return (t.database.db as unknown as { $client: PlanClient }).$client;
}

/** Rows the plan's scans of `relation` read: returned or filtered out, over every loop. */
export function rowsRead(node: PlanNode, relation: string): number {
  const own =
    node['Relation Name'] === relation
      ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops']
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, relation), 0);
}

/**
 * The scans of `relation` in the plan, as "<node type> <index name>": a scan on an index can return few
 * rows while walking all its entries, so a test that a read is bounded names the index it must use.
 */
export function scansOf(node: PlanNode, relation: string): string[] {
  const own =
    node['Relation Name'] === relation && node['Node Type'].endsWith('Scan')
      ? [`${node['Node Type']} ${node['Index Name'] ?? ''}`.trim()]
      : [];
  return [...own, ...(node.Plans ?? []).flatMap((child) => scansOf(child, relation))];
}

/** The executed plan of one statement. */
export async function executedPlan(client: PlanClient, query: string, params: unknown[] = []): Promise<PlanNode> {
  const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${query}`,
    params,
  );
  return rows[0]!['QUERY PLAN'][0].Plan;
}

/** A statement `work` ran, with its executed plan. */
export interface StatementPlan {
  query: string;
  plan: PlanNode;
}

/**
 * Runs `work` with a database handle that records every statement, then answers the executed plan of
 * each statement it ran, in order; a statement that is itself an EXPLAIN (a planner's estimate the
 * work asked for) has no plan to answer and is left out.
 */
export async function plansOf(t: TestApp, work: (db: Db) => Promise<unknown>): Promise<PlanNode[]> {
  return (await statementPlansOf(t, work)).map((s) => s.plan);
}

/**
 * As `plansOf`, with each statement's text beside its plan; with `readsOnly`, only the SELECTs are run
 * again (work that writes rows it cannot write twice, such as audit rows of a fixed id).
 */
/** A statement as a database handle sent it: its text and its bound values. */
export interface SentStatement {
  query: string;
  params: unknown[];
}

/** A database handle on the test app's own client that records every statement it sends, in order. */
export function recordingDb(t: TestApp): { db: Db; statements: SentStatement[] } {
  const client = planClient(t);
  const statements: SentStatement[] = [];
  const logger = { logQuery: (query: string, params: unknown[]) => statements.push({ query, params }) };
  const db = (t.database.kind === 'postgres'
    ? drizzlePostgres({ client: client as never, logger })
    : drizzlePglite({ client: client as never, logger })) as unknown as Db;
  return { db, statements };
}

export async function statementPlansOf(
  t: TestApp,
  work: (db: Db) => Promise<unknown>,
  options: { readsOnly?: boolean } = {},
): Promise<StatementPlan[]> {
  const client = planClient(t);
  const { db, statements } = recordingDb(t);
  await work(db);
  const plans: StatementPlan[] = [];
  for (const { query, params } of statements) {
    if (/^\s*EXPLAIN\b/i.test(query)) continue;
    if (options.readsOnly && !/^\s*(select|with)\b/i.test(query)) continue;
    plans.push({ query, plan: await executedPlan(client, query, params) });
  }
  return plans;
}

/** A statement's value as an SQL literal, for EXECUTE: the lists' values are texts and numbers. */
const literal = (value: unknown): string =>
  value === null ? 'NULL' : typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`;

/**
 * The rows of `relation` that the statements of `work` read under their generic plan, the one plan made
 * for any value (the app's connections run `plan_cache_mode = force_generic_plan`, decision 401): each is
 * prepared and run again under EXPLAIN ANALYZE (an EXPLAIN of the statement itself would be planned for
 * its values).
 */
export async function rowsReadUnderGenericPlans(
  t: TestApp,
  relation: string,
  work: (db: Db) => Promise<unknown>,
): Promise<number> {
  const { db, statements } = recordingDb(t);
  await work(db);
  let read = 0;
  for (const { query, params } of statements) read += rowsRead(await genericPlan(t, query, params), relation);
  return read;
}

/** The executed plan of one statement under its generic plan, prepared and run on one connection. */
export async function genericPlan(t: TestApp, query: string, params: unknown[] = []): Promise<PlanNode> {
  const client = planClient(t);
  // One connection for PREPARE and EXECUTE: the pool's own on PostgreSQL, PGlite's only one.
  const pool = client as unknown as { connect?: () => Promise<PlanClient & { release(): void }> };
  const conn = t.database.kind === 'postgres' && pool.connect ? await pool.connect() : undefined;
  const on: PlanClient = conn ?? client;
  try {
    await on.query('SET plan_cache_mode = force_generic_plan');
    await on.query(`PREPARE generic_plan AS ${query}`);
    try {
      // EXECUTE takes its values as literals (a utility statement has no bound parameters).
      const args = params.map(literal).join(', ');
      const { rows } = await on.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE generic_plan${args ? `(${args})` : ''}`,
      );
      return rows[0]!['QUERY PLAN'][0].Plan;
    } finally {
      await on.query('DEALLOCATE generic_plan');
    }
  } finally {
    conn?.release();
  }
}

/**
 * ANALYZEs `table` with a sample of 300 rows (a statistics target of 1) until `missed` says the sample
 * missed the rare value a test needs missed (at most 50 tries); answers whether it did. Whoever calls it
 * ANALYZEs the table again at its end.
 */
export async function analyzeUntil(t: TestApp, table: string, missed: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    await t.database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL default_statistics_target = 1`);
      await tx.execute(sql.raw(`ANALYZE ${table}`));
    });
    if (await missed()) return true;
  }
  return false;
}

/**
 * The rows of `relation` that `work`'s reads of it take when planned for their values, as they are after
 * `SET LOCAL plan_cache_mode = force_custom_plan` (a transaction of their own, decision 401): each read is
 * run again under EXPLAIN ANALYZE with its values. Throws unless every read of `relation` follows the setting.
 */
export async function rowsReadPlannedForValues(
  t: TestApp,
  relation: string,
  work: (db: Db) => Promise<unknown>,
): Promise<number> {
  const { db, statements } = recordingDb(t);
  await work(db);
  const texts = statements.map((s) => s.query.trim());
  const setting = texts.indexOf('SET LOCAL plan_cache_mode = force_custom_plan');
  const reads = statements.filter((s) => /^\s*(select|with)\b/i.test(s.query) && s.query.includes(`"${relation}"`));
  if (reads.length === 0 || setting < 0 || reads.some((s) => statements.indexOf(s) < setting))
    throw new Error(`a read of ${relation} not planned for its values:\n${texts.join('\n')}`);
  let read = 0;
  for (const { query, params } of reads) read += rowsRead(await executedPlan(planClient(t), query, params), relation);
  return read;
}
