// On Linear, an agent's open issue is found again by its `agent-id:` label (decision 051): a PATCH that
// sets the issue's labels keeps that one (decision 987), so the agent's next filing is still deduplicated.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useLinearApp } from './tracker-linear-fixtures.ts';

describe("a Linear issue's agent label", () => {
  const { fake, t, admin } = useLinearApp();

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    t.app.inject({ method, url, payload, headers: admin.headers });
  const names = (issue: { labels: { name: string }[] }) => issue.labels.map((l) => l.name).sort();

  it('stays through a PATCH of labelIds, and the agent filing the same title again gets the same issue', async () => {
    const body = { title: 'Nightly export failed', agent_id: 'exporter', label_names: ['bug', 'exports'] };
    const filed = await call('POST', '/api/v1/tracker/issues/agent', body);
    assert.equal(filed.statusCode, 201, filed.body);
    const issue = filed.json();
    assert.deepEqual(names(issue), ['Bug', 'agent-id:exporter', 'agent:custom', 'exports']);

    const bug = fake.labels.find((l) => l.name === 'Bug')!;
    const patched = await call('PATCH', `/api/v1/tracker/issues/${issue.id}`, { labelIds: [bug.id] });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(names(patched.json()), ['Bug', 'agent-id:exporter']);

    const again = await call('POST', '/api/v1/tracker/issues/agent', body);
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual([again.json().id, again.json().deduplicated], [issue.id, true]);
    assert.equal(fake.issues.filter((i) => i.title === body.title).length, 1);

    // Emptying the labels empties the caller's, never the agent's.
    const emptied = await call('PATCH', `/api/v1/tracker/issues/${issue.id}`, { labelIds: [] });
    assert.equal(emptied.statusCode, 200, emptied.body);
    assert.deepEqual(names(emptied.json()), ['agent-id:exporter']);
  });
});
