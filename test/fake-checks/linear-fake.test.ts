// The Linear fake must refuse what Linear refuses: an unknown input field or argument, a wrong key,
// a type error; and serve what it models as Linear does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startLinearFake, type LinearFake } from '../fakes/linear.ts';

describe('Linear fake', () => {
  let fake: LinearFake;
  before(async () => {
    fake = await startLinearFake();
  });
  after(async () => {
    await fake.close();
  });

  const graphql = async (query: string, variables: Record<string, unknown> = {}, authorization = fake.apiKey) => {
    const response = await fetch(fake.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: response.status,
      body: (await response.json()) as {
        data?: Record<string, { success?: boolean; issue?: { id: string; title: string } }>;
        errors?: { message: string; extensions: { code: string } }[];
      },
    };
  };
  const CREATE = 'mutation C($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { id title } } }';
  const UPDATE =
    'mutation U($id: String!, $input: IssueUpdateInput!) { issueUpdate(id: $id, input: $input) { ' +
    'success issue { id title } } }';

  it('creates and updates an issue from the fields it models', async () => {
    const created = await graphql(CREATE, { input: { teamId: fake.teams.eng.id, title: 'Modelled' } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.data!.issueCreate!.issue!.id;
    const updated = await graphql(UPDATE, { id, input: { title: 'Renamed' } });
    assert.equal(updated.body.data!.issueUpdate!.issue!.title, 'Renamed');
  });

  it('refuses an input field its schema does not define, changing nothing', async () => {
    const before = fake.issues.length;
    const created = await graphql(CREATE, { input: { teamId: fake.teams.eng.id, title: 'x', sortOrder: -1 } });
    assert.equal(created.status, 400);
    assert.equal(created.body.errors![0]!.extensions.code, 'GRAPHQL_VALIDATION_FAILED');
    assert.match(created.body.errors![0]!.message, /Field "sortOrder" is not defined by type "IssueCreateInput"/);
    assert.equal(fake.issues.length, before);
    const id = fake.issues[0]!.id;
    const trashed = await graphql(UPDATE, { id, input: { trashed: true } });
    assert.match(trashed.body.errors![0]!.message, /Field "trashed" is not defined by type "IssueUpdateInput"/);
  });

  it('refuses an argument a field does not take', async () => {
    const answer = await graphql('query { issues(first: 5, includeArchived: true) { nodes { id } } }');
    assert.equal(answer.status, 400);
    assert.equal(answer.body.errors![0]!.message, 'Unknown argument "includeArchived" on field "issues".');
  });

  it('refuses a wrong key and a fractional integer as Linear does', async () => {
    const unauthenticated = await graphql('query { viewer { id } }', {}, 'lin_api_wrong');
    assert.equal(unauthenticated.body.errors![0]!.extensions.code, 'AUTHENTICATION_ERROR');
    const fraction = await graphql(CREATE, { input: { teamId: fake.teams.eng.id, title: 'x', priority: 1.5 } });
    assert.match(fraction.body.errors![0]!.message, /Int cannot represent non-integer value/);
  });
});
