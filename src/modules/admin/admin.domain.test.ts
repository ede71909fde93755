import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { utcMonthStart } from './admin.domain.ts';

describe('admin rules', () => {
  it('finds the start of the UTC month, whatever the local offset would say', () => {
    assert.equal(utcMonthStart(new Date('2025-03-31T23:59:59.999Z')).toISOString(), '2025-03-01T00:00:00.000Z');
    assert.equal(utcMonthStart(new Date('2025-04-01T00:00:00.000Z')).toISOString(), '2025-04-01T00:00:00.000Z');
  });
});
