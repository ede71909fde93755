// A refresh token belongs to its device session, as a foreign key would keep it (docs/decisions/129),
// whatever writes the rows: the tokens of deleted or truncated sessions are gone, a token for a session
// that does not exist is refused, and a session being given a token cannot be deleted under it.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { buildTestApp, resetDatabase, signIn, testDatabaseUrl, type TestApp } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import { withoutPostgres } from '../../helpers/services.ts';

const NO_POSTGRES = withoutPostgres('a transaction holding a session needs PostgreSQL and two real connections');

describe('refresh tokens follow their device sessions', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  beforeEach(() => resetDatabase(t.database));
  after(() => t.close());

  const exec = (query: ReturnType<typeof sql>) => t.database.db.execute(query);
  const count = async (query: ReturnType<typeof sql>) => Number((await t.database.rows<{ n: number }>(query))[0]!.n);

  /** `n` sessions of a new user, each with two refresh tokens, written as a bulk import would. */
  async function sessionsWithTokens(n: number): Promise<string[]> {
    const user = await signIn(t.app, t.database);
    const ids = await t.database.rows<{ id: string }>(sql`
      INSERT INTO device_sessions (user_id, user_agent, ip, expires_at)
      SELECT ${user.id}::uuid, 'test', '127.0.0.1', now() + interval '1 day' FROM generate_series(1, ${n})
      RETURNING id`);
    await exec(sql`
      INSERT INTO refresh_tokens (session_id, token_hash, expires_at)
      SELECT s.id, md5(s.id::text || k), now() + interval '1 day'
      FROM device_sessions s CROSS JOIN generate_series(1, 2) AS k WHERE s.user_id = ${user.id}::uuid`);
    return ids.map((row) => row.id);
  }

  const tokensOf = (ids: string[]) =>
    count(sql`SELECT count(*) AS n FROM refresh_tokens WHERE session_id = ANY (${`{${ids.join(',')}}`}::uuid[])`);

  it('deletes the tokens of the sessions one statement deletes, and only theirs', async () => {
    const ids = await sessionsWithTokens(6);
    const [gone, kept] = [ids.slice(0, 4), ids.slice(4)];
    await exec(sql`DELETE FROM device_sessions WHERE id = ANY (${`{${gone.join(',')}}`}::uuid[])`);
    assert.equal(await tokensOf(gone), 0);
    assert.equal(await tokensOf(kept), 4);
  });

  it('deletes the tokens of a deleted account, whose sessions go by cascade', async () => {
    const ids = await sessionsWithTokens(3);
    const other = await sessionsWithTokens(1);
    await exec(sql`DELETE FROM users WHERE id = (SELECT user_id FROM device_sessions WHERE id = ${ids[0]}::uuid)`);
    assert.equal(await tokensOf(ids), 0);
    assert.equal(await tokensOf(other), 2);
  });

  it('empties the tokens when the sessions are truncated', async () => {
    await sessionsWithTokens(2);
    await exec(sql`TRUNCATE device_sessions`);
    assert.equal(await count(sql`SELECT count(*) AS n FROM refresh_tokens`), 0);
  });

  it('refuses a token, or a token moved, to a session that does not exist, as a foreign key violation', async () => {
    const [session] = await sessionsWithTokens(1);
    const missing = '00000000-0000-4000-8000-000000000000';
    const insert = exec(
      sql`INSERT INTO refresh_tokens (session_id, token_hash, expires_at) VALUES (${missing}::uuid, 'x', now())`,
    );
    await assert.rejects(
      insert,
      (error: { cause?: { code?: string }; code?: string }) => (error.cause?.code ?? error.code) === '23503',
    );
    const move = exec(sql`UPDATE refresh_tokens SET session_id = ${missing}::uuid WHERE session_id = ${session}::uuid`);
    await assert.rejects(
      move,
      (error: { cause?: { code?: string }; code?: string }) => (error.cause?.code ?? error.code) === '23503',
    );
    assert.equal(await tokensOf([session!]), 2);
  });

  it('keeps a session being given a token until that transaction ends; deleting it then takes the token too', {
    skip: NO_POSTGRES,
  }, async () => {
    const [session] = await sessionsWithTokens(1);
    const writer = new pg.Client({ connectionString: (await testDatabaseUrl())! });
    const deleter = new pg.Client({ connectionString: (await testDatabaseUrl())! });
    await Promise.all([writer.connect(), deleter.connect()]);
    try {
      await writer.query('BEGIN');
      await writer.query(
        `INSERT INTO refresh_tokens (session_id, token_hash, expires_at) VALUES ($1, 'held', now() + interval '1 day')`,
        [session],
      );
      const deletion = deleter.query('DELETE FROM device_sessions WHERE id = $1', [session]);
      // The deletion waits for the writer's lock on the session, as it would behind a foreign key's check.
      await waitFor(async () => {
        const waiting = await t.database.rows<{ n: number }>(
          sql`SELECT count(*) AS n FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM device_sessions%'`,
        );
        return Number(waiting[0]!.n) === 1;
      }, 'the deletion to wait for the lock on the session');
      await writer.query('COMMIT');
      assert.equal((await deletion).rowCount, 1);
      assert.equal(await tokensOf([session!]), 0, 'the token written while the session was held is deleted with it');
    } finally {
      await Promise.all([writer.end(), deleter.end()]);
    }
  });
});
