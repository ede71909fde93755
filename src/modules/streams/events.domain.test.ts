import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLastEventId, reaches } from './events.domain.ts';

describe('account events', () => {
  it('reach their own user, and admin events every admin', () => {
    const user = { audience: 'user' as const, userId: 'u1' };
    const admins = { audience: 'admins' as const, userId: null };
    assert.equal(reaches(user, { userId: 'u1', admin: false }), true);
    assert.equal(reaches(user, { userId: 'u2', admin: true }), false, "an admin does not see another user's account");
    assert.equal(reaches(admins, { userId: 'u2', admin: true }), true);
    assert.equal(reaches(admins, { userId: 'u1', admin: false }), false);
  });

  it('take Last-Event-ID as a sequence number only', () => {
    assert.equal(parseLastEventId(undefined), undefined);
    assert.equal(parseLastEventId(' '), undefined);
    assert.equal(parseLastEventId('42'), 42n);
    assert.equal(parseLastEventId('-1'), 'invalid');
    assert.equal(parseLastEventId('abc'), 'invalid');
    assert.equal(parseLastEventId('99999999999999999999'), 'invalid');
    assert.equal(parseLastEventId('9223372036854775808'), 'invalid');
  });
});
