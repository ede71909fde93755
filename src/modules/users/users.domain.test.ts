import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../platform/http/errors.ts';
import { assertNotSelfLockout, keepsAnAdmin, parseUserId, revokesSessions, statusColumns } from './users.domain.ts';

describe('account rules', () => {
  it('accepts UUIDs in any case and refuses anything else', () => {
    assert.equal(parseUserId('0F8FAD5B-D9CB-469F-A165-70867728950E'), '0f8fad5b-d9cb-469f-a165-70867728950e');
    assert.equal(parseUserId('not-a-uuid'), undefined);
    assert.equal(parseUserId('0f8fad5bd9cb469fa16570867728950e'), undefined);
    assert.equal(parseUserId("0f8fad5b-d9cb-469f-a165-70867728950e' OR 1=1"), undefined);
  });

  it('revokes sessions for suspension and deletion only', () => {
    assert.equal(revokesSessions('suspended'), true);
    assert.equal(revokesSessions('deleted'), true);
    assert.equal(revokesSessions('active'), false);
  });

  it('stamps deletion and clears the stamp on any other status', () => {
    const now = new Date('2025-03-04T05:06:07.000Z');
    assert.deepEqual(statusColumns('deleted', now), { status: 'deleted', deletedAt: now });
    assert.deepEqual(statusColumns('active', now), { status: 'active', deletedAt: null });
  });

  it('refuses an admin demoting, suspending or deleting themselves with 409, and allows the rest', () => {
    for (const change of [{ role: 'user' }, { status: 'suspended' }, { status: 'deleted' }]) {
      assert.throws(
        () => assertNotSelfLockout('a', 'a', change),
        (e: unknown) => e instanceof AppError && e.status === 409,
      );
    }
    assert.doesNotThrow(() => assertNotSelfLockout('a', 'a', { role: 'admin', status: 'active' }));
    assert.doesNotThrow(() => assertNotSelfLockout('a', 'b', { role: 'user', status: 'deleted' }));
  });

  it('lets a change take an active admin away only while another remains', () => {
    const admin = { id: 'a', role: 'admin', status: 'active' };
    assert.equal(keepsAnAdmin(new Set(['a']), admin, { role: 'user' }), false);
    const two = new Set(['a', 'b']);
    assert.equal(keepsAnAdmin(two, admin, { status: 'suspended' }), true);
    assert.equal(keepsAnAdmin(two, { ...admin, id: 'b' }, { status: 'deleted' }), false);
    assert.equal(
      keepsAnAdmin(new Set(['b']), { id: 'c', role: 'user', status: 'active' }, { status: 'deleted' }),
      true,
    );
  });
});
