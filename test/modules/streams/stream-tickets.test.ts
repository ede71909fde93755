// POST /api/stream/ticket: each ticket is a cache entry for 60 s, so one user may be issued only a
// bounded number of them per ticket lifetime (decision 991).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TICKETS_PER_USER } from '../../../src/modules/streams/tickets.service.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

describe('stream tickets per user', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  before(async () => {
    t = await buildTestApp();
    alice = await signIn(t.app, t.database);
    bob = await signIn(t.app, t.database);
  });
  after(async () => {
    await t.close();
  });

  const ticket = (user: TestUser) => t.app.inject({ method: 'POST', url: '/api/stream/ticket', headers: user.headers });

  it('answers 429 with Retry-After past the bound, for that user only', async () => {
    for (let i = 0; i < TICKETS_PER_USER; i++) assert.equal((await ticket(alice)).statusCode, 200, `ticket ${i + 1}`);
    const refused = await ticket(alice);
    assert.equal(refused.statusCode, 429);
    assert.deepEqual(refused.json(), { detail: 'Too many stream tickets; try again later' });
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${refused.headers['retry-after']}`);

    assert.equal((await ticket(bob)).statusCode, 200, "another user's tickets are counted apart");
  });
});
