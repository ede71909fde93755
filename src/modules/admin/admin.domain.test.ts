import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../platform/http/errors.ts';
import { assertNotSelfLockout, utcMonthStart } from './admin.domain.ts';

describe('admin user rules', () => {
  it('refuses an admin demoting, suspending or deleting themselves with 409, and allows the rest', () => {
    const actor = { id: 'a' };
    for (const change of [{ role: 'user' }, { status: 'suspended' }, { status: 'deleted' }]) {
      assert.throws(() => assertNotSelfLockout(actor, 'a', change), (e: unknown) => e instanceof AppError && e.status === 409);
    }
    assert.doesNotThrow(() => assertNotSelfLockout(actor, 'a', { role: 'admin', status: 'active' }));
    assert.doesNotThrow(() => assertNotSelfLockout(actor, 'b', { role: 'user', status: 'deleted' }));
  });

  it('finds the start of the UTC month, whatever the local offset would say', () => {
    assert.equal(utcMonthStart(new Date('2025-03-31T23:59:59.999Z')).toISOString(), '2025-03-01T00:00:00.000Z');
    assert.equal(utcMonthStart(new Date('2025-04-01T00:00:00.000Z')).toISOString(), '2025-04-01T00:00:00.000Z');
  });
});
