// Every operation of the OpenAPI document the app serves, attacked with hostile values one part at a
// time: no answer is a 5xx, every refusal is `{"detail": ...}`, a wrong method is a 405 naming what
// is allowed, and a refused request changes no row of any table (decisions 095-099).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import {
  hostileRequests,
  matchesTemplate,
  operationsOf,
  withFixtures,
  type Known,
  type Operation,
} from '../../helpers/hostile-requests.ts';
import { LOCAL_DEFAULT_TEAM } from '../../../src/modules/tracker/adapters/local-tracker-backend.ts';
import { startVenueFakes, type VenueFakes } from '../../modules/exchange/venue-fakes.ts';

const JOB_SECRET = 'hostile-inputs-job-secret';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Per table, its row count and a digest of every row, so an update or delete shows as well as an
 * insert. The audit trail keeps the failed attempts it exists to record (a wrong current password is
 * refused and audited, as a failed login is): only its other rows count; a session's last-seen time
 * is not the request's doing either.
 */
function snapshotSql(tables: string[]) {
  const digest = (from: string) =>
    `(SELECT count(*) || ':' || coalesce(md5(string_agg(md5(t::text), '' ORDER BY md5(t::text))), '') FROM ${from})`;
  const from = (name: string) =>
    name === 'audit_log'
      ? `(SELECT * FROM "audit_log" WHERE action NOT LIKE '%\\_failed') t`
      : // The bearer guard notes when a session was last seen (at most once a minute), whatever the answer.
        name === 'device_sessions'
        ? `(SELECT to_jsonb(s) - 'last_seen_at' AS row FROM "device_sessions" s) t`
        : `"${name}" t`;
  const columns = tables.map((name) => `${digest(from(name))} AS "${name}"`);
  return sql.raw(`SELECT ${columns.join(', ')}`);
}

/** Methods no operation serves at the operation's path (as its sample URL resolves), to expect 405 for. */
function unservedMethods(operation: Operation, operations: Operation[]): string[] {
  const concrete = operation.path.replace(/\{[^}]+\}/g, 'sample-value');
  const served = operations.filter((other) => matchesTemplate(other.path, concrete)).map((other) => other.method);
  if (served.includes('GET')) served.push('HEAD');
  return METHODS.filter((method) => !served.includes(method)).slice(0, 2);
}

describe('hostile inputs on every operation', () => {
  let t: TestApp;
  let venues: VenueFakes;
  let admin: TestUser;
  let known: Known;
  let snapshotQuery: ReturnType<typeof sql.raw>;

  before(async () => {
    venues = await startVenueFakes();
    t = await buildTestApp({
      env: venues.env({
        SCHEDULED_JOB_SECRET: JOB_SECRET,
        // The Telegram link answers its code rather than 503 (no reader runs under inject()).
        TELEGRAM_BOT_TOKEN: '123456:fuzz-bot-token',
        TELEGRAM_BOT_USERNAME: 'fuzz_alerts_bot',
        WEBHOOKS_ALLOW_UNSIGNED: 'true',
        MARKET_DATA_SOURCE: 'simulated',
      }),
    });
    admin = await signIn(t.app, t.database, { role: 'admin' });
    const member = await signIn(t.app, t.database);
    const base = {
      teamId: LOCAL_DEFAULT_TEAM.id,
      symbol: 'BTCUSDT',
      symbols: 'BTCUSDT',
      user_id: member.id,
      userId: member.id,
      email: member.email,
    };
    known = await withFixtures(t.app, admin.headers, base);
    const tables = await t.database.rows<{ tablename: string }>(
      sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
    );
    snapshotQuery = snapshotSql(tables.map((row) => row.tablename));
  });
  after(async () => {
    await t.close();
    await venues.close();
  });

  /**
   * Every table's digest, read again only when a transaction has written since the last reading: every
   * change to a row (insert, update, delete, truncate) takes a transaction id, and a transaction that
   * ends, committed or rolled back, moves the snapshot's upper bound past it. Where nothing moved it the
   * tables are as last read, and the digest (3× the CPU time of the requests themselves) is not redone.
   */
  let read: { xmax: string; tables: Record<string, string> } | undefined;
  const snapshot = async () => {
    const [{ xmax }] = await t.database.rows<{ xmax: string }>(
      sql`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax`,
    );
    if (read?.xmax !== xmax)
      read = { xmax: xmax!, tables: (await t.database.rows<Record<string, string>>(snapshotQuery))[0]! };
    return read.tables;
  };

  it("answers every hostile request in the contract's shape, never 5xx, and stores nothing it refused", async () => {
    // A stream that a hostile request fails to refuse stays open, and inject() waits for its end: the
    // two Server-Sent Event streams are attacked over a real socket in their own tests instead.
    const operations = operationsOf(t.app.swagger()).filter(
      (op) => !(op.method === 'GET' && ['/api/v1/market/stream', '/api/stream'].includes(op.path)),
    );
    assert.ok(operations.length >= 99, `only ${operations.length} operations`);
    // Signing out would end the admin session the other operations use: it goes last.
    operations.sort((a, b) => Number(a.path === '/api/auth/logout') - Number(b.path === '/api/auth/logout'));

    const failures: string[] = [];
    const accepted: string[] = [];
    let before = await snapshot();
    let sent = 0;
    for (const operation of operations) {
      const headers: Record<string, string> = { ...admin.headers, 'x-scheduled-job-secret': JOB_SECRET };
      for (const request of hostileRequests(operation, headers, unservedMethods(operation, operations), known)) {
        const response = await t.app.inject({
          method: request.method as 'GET',
          url: request.url,
          headers: request.headers,
          payload: request.payload,
        });
        sent++;
        const where =
          `${request.method} ${operation.path} [${request.label}] ` +
          `→ ${response.statusCode} ${response.body.slice(0, 160)}`;
        const after = await snapshot();
        if (response.statusCode >= 500) failures.push(`5xx: ${where}`);
        if (response.statusCode < 400) accepted.push(where);
        if (response.statusCode >= 400) {
          let detail: unknown;
          try {
            detail = response.json<{ detail?: unknown }>().detail;
          } catch {
            detail = undefined;
          }
          if (detail === undefined) failures.push(`not {"detail"}: ${where}`);
          if (response.statusCode === 405 && !response.headers.allow) failures.push(`405 without Allow: ${where}`);
          const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
          if (changed.length > 0) failures.push(`refused but stored (${changed.join(', ')}): ${where}`);
        }
        if (request.label.startsWith('method ') && response.statusCode !== 405)
          failures.push(`wrong method not 405: ${where}`);
        if (!request.label.startsWith('method ') && !operation.responses.includes(String(response.statusCode)))
          failures.push(`undocumented status: ${where}`);
        before = after;
      }
    }
    if (process.env.HOSTILE_SHOW_ACCEPTED) console.log(accepted.join('\n'));
    assert.deepEqual(failures, [], `${failures.length} of ${sent} requests`);
    assert.ok(sent > 500, `only ${sent} requests`);
  });
});
