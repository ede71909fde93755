// Linear's query complexity (decision 1011): a query over 10 000 points is refused, and 250 issues with their
// labels is some 17 000. A list of up to 250 issues is read from Linear in pages that stay under it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { startLinearFake, type LinearFake } from '../../fakes/linear.ts';
import { LINEAR_MAX_COMPLEXITY } from '../../fakes/linear-complexity.ts';
import { linearEnv } from './tracker-linear-fixtures.ts';

describe('tracker on the Linear backend, large lists', () => {
  let fake: LinearFake;
  let t: TestApp;
  let admin: TestUser;
  before(async () => {
    fake = await startLinearFake();
    t = await buildTestApp({ env: linearEnv(fake) });
    admin = await signIn(t.app, t.database, { role: 'admin' });
    fake.fileIssues(fake.teams.eng, 260);
  });
  after(async () => {
    await t.close();
    await fake.close();
  });

  const list = (query: string) =>
    t.app.inject({ method: 'GET', url: `/api/v1/tracker/issues?${query}`, headers: admin.headers });
  const issueQueries = (from: number) => fake.requests.slice(from).filter((r) => r.fields.includes('issues'));

  it('answers 250 issues, most recently updated first, in queries each within the complexity limit', async () => {
    const from = fake.requests.length;
    const response = await list('limit=250');
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.count, 250);
    assert.equal(body.has_more, true, 'ten more match');
    const identifiers = body.issues.map((i: { identifier: string }) => i.identifier);
    assert.equal(new Set(identifiers).size, 250, 'no issue twice');
    assert.deepEqual(identifiers.slice(0, 2), ['ENG-260', 'ENG-259']);
    assert.equal(identifiers.at(-1), 'ENG-11');
    const queries = issueQueries(from);
    assert.deepEqual(
      queries.map((q) => q.variables.first),
      [100, 100, 50],
    );
    for (const query of queries) assert.ok(query.complexity! <= LINEAR_MAX_COMPLEXITY, String(query.complexity));
  });

  it('says there is no more when the last page ends the list, and asks a small list in one query', async () => {
    const todo = fake.states.find((s) => s.team.id === fake.teams.eng.id && s.name === 'Todo')!;
    fake.fileIssues(fake.teams.eng, 150, { title: 'Planned', stateId: todo.id });
    let from = fake.requests.length;
    const planned = await list('limit=250&states=unstarted');
    assert.equal(planned.statusCode, 200, planned.body);
    assert.equal(planned.json().count, 150);
    assert.equal(planned.json().has_more, false);
    assert.deepEqual(
      issueQueries(from).map((q) => q.variables.first),
      [100, 100],
    );
    from = fake.requests.length;
    const small = (await list('limit=5')).json();
    assert.equal(small.count, 5);
    assert.equal(small.has_more, true);
    assert.equal(issueQueries(from).length, 1);
  });
});
