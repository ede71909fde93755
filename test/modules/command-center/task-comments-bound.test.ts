// A task's answer carries its latest 100 comments, oldest first, and counts them all (decision 1001):
// a task with thousands of comments answered them all, in every read and every change of it.
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { COMMENTS_SHOWN } from '../../../src/modules/command-center/tasks.service.ts';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const BASE = '/api/admin/command-center/tasks';
const COMMENTS = 2_500;

describe("command center: a task's comments in its answer", () => {
  let t: TestApp;
  let admin: TestUser;
  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: admin.headers, ...(payload ? { payload } : {}) });

  before(async () => {
    t = await buildTestApp();
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(() => t.close());

  /** A task with `n` comments written a second apart (comment i at second i), and the task's id. */
  async function taskWithComments(n: number): Promise<string> {
    const created = await call('POST', BASE, { title: `talkative ${n}` });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as string;
    await t.database.db.execute(sql`
      INSERT INTO command_center_task_comments (task_id, body, created_at)
      SELECT ${id}::uuid, 'comment ' || i, timestamptz '2000-01-01T00:00:00Z' + i * interval '1 second'
      FROM generate_series(1, ${n}) AS i`);
    return id;
  }

  it('are the latest 100, oldest first, with the count of all of them', async () => {
    const id = await taskWithComments(COMMENTS);
    const read = await call('GET', `${BASE}/${id}`);
    assert.equal(read.statusCode, 200, read.body);
    const task = read.json();
    assert.equal(COMMENTS_SHOWN, 100);
    assert.equal(task.comment_count, COMMENTS);
    assert.deepEqual(
      task.comments.map((c: { body: string }) => c.body),
      Array.from({ length: COMMENTS_SHOWN }, (_, i) => `comment ${COMMENTS - COMMENTS_SHOWN + 1 + i}`),
    );
  });

  it('include the one a change just added, in the change’s answer', async () => {
    const id = await taskWithComments(COMMENTS_SHOWN + 5);
    const changed = await call('PATCH', `${BASE}/${id}`, { status: 'in_progress', comment: 'the newest' });
    assert.equal(changed.statusCode, 200, changed.body);
    const task = changed.json();
    assert.equal(task.comment_count, COMMENTS_SHOWN + 6);
    assert.equal(task.comments.length, COMMENTS_SHOWN);
    assert.equal(task.comments.at(-1).body, 'the newest');
    assert.equal(task.comments[0].body, 'comment 7');
  });

  it('are all there, with their count, when there are fewer than 100', async () => {
    const id = await taskWithComments(3);
    const task = (await call('GET', `${BASE}/${id}`)).json();
    assert.equal(task.comment_count, 3);
    assert.deepEqual(
      task.comments.map((c: { body: string }) => c.body),
      ['comment 1', 'comment 2', 'comment 3'],
    );
  });
});
