// The closed sets (roles, statuses, tiers, audit actions, outbox kinds and states, credential
// validation states, job names, stream event types) are checked by the database as well as by the compiler: a write
// with a value outside its set fails, whichever code path makes it.
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { before, describe, it } from 'node:test';
import { JOB_NAMES } from '../../../src/declarations.ts';
import type { Database } from '../../../src/platform/db/database.ts';
import { STREAM_EVENT_TYPES } from '../../../src/declarations.ts';
import { testDatabase } from '../../helpers/test-app.ts';

describe('closed sets in the database', () => {
  let database: Database;
  before(async () => {
    database = await testDatabase();
  });

  const refused = async (statement: string, constraint: string) => {
    await assert.rejects(database.db.execute(sql.raw(statement)), (error: Error) => {
      const text = `${error.message} ${String((error as { cause?: Error }).cause?.message)}`;
      assert.match(text, new RegExp(constraint));
      return true;
    });
  };

  it('refuses an unknown role, status or tier', async () => {
    await refused(
      `INSERT INTO users (email, password_hash, role) VALUES ('a@example.com', 'x', 'root')`,
      'users_role_check',
    );
    await refused(
      `INSERT INTO users (email, password_hash, status) VALUES ('a@example.com', 'x', 'frozen')`,
      'users_status_check',
    );
    await refused(
      `INSERT INTO users (email, password_hash, subscription_tier) VALUES ('a@example.com', 'x', 'platinum')`,
      'users_subscription_tier_check',
    );
  });

  it('refuses an unknown audit action or actor type', async () => {
    await refused(
      `INSERT INTO audit_log (actor_type, action) VALUES ('system', 'user.teleport')`,
      'audit_log_action_check',
    );
    await refused(
      `INSERT INTO audit_log (actor_type, action) VALUES ('robot', 'auth.login')`,
      'audit_log_actor_type_check',
    );
    await database.db.execute(sql.raw(`INSERT INTO audit_log (actor_type, action) VALUES ('system', 'auth.login')`));
  });

  it('refuses an outbox row of a kind no handler takes, or in an unknown state', async () => {
    await refused(`INSERT INTO outbox (kind, payload) VALUES ('fax.send', '{}')`, 'outbox_kind_check');
    await refused(
      `INSERT INTO outbox (kind, payload, status) VALUES ('chat.post', '{}', 'lost')`,
      'outbox_status_check',
    );
  });

  it('refuses a run or a claim of a job the registry does not define, and takes one it does', async () => {
    const run = (job: string) =>
      `INSERT INTO scheduled_job_runs (job, trigger, started_at, status) VALUES ('${job}', 'http', now(), 'running')`;
    await refused(run('cleanup-everything'), 'scheduled_job_runs_job_check');
    await refused(
      'INSERT INTO scheduled_job_claims (job, run_id, claimed_at) VALUES ' +
        "('cleanup-everything', gen_random_uuid(), now())",
      'scheduled_job_claims_job_check',
    );
    for (const job of JOB_NAMES) await database.db.execute(sql.raw(run(job)));
  });

  it('refuses a stream event of a type no module declares, and takes every declared one', async () => {
    const event = (type: string) =>
      `INSERT INTO stream_events (type, audience, data) VALUES ('${type}', 'admins', '{}'::jsonb)`;
    await refused(event('balance.teleported'), 'stream_events_type_check');
    for (const type of STREAM_EVENT_TYPES) await database.db.execute(sql.raw(event(type)));
  });
});
