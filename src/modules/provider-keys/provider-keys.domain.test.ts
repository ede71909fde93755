import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { daysUntil, keyPrefix, nextRotationDate, reminderCutoff } from './provider-keys.domain.ts';

describe('provider key rules', () => {
  it('shows at most 7 characters and at most a quarter of the key', () => {
    assert.equal(keyPrefix('sk-proj-0123456789abcdefghijklmnopqrstuvwxyz'), 'sk-proj…');
    assert.equal(keyPrefix('sk-ant-api03-abcdefghijklmnopqrstuvwxyz'), 'sk-ant-…');
    assert.equal(keyPrefix('0123456789'), '01…');
    assert.equal(keyPrefix('0123456789abcdef'), '0123…');
    assert.equal(keyPrefix('abcdefghijklmnopqrstuvwxyz0123'), 'abcdefg…');
  });

  it('dates the next rotation from the last rotation, or from creation', () => {
    const created = new Date('2025-01-01T00:00:00Z');
    assert.equal(nextRotationDate(null, created, 90).toISOString(), '2025-04-01T00:00:00.000Z');
    const rotated = new Date('2025-03-10T12:00:00Z');
    assert.equal(nextRotationDate(rotated, created, 30).toISOString(), '2025-04-09T12:00:00.000Z');
  });

  it('counts whole days until rotation, negative once overdue', () => {
    const now = new Date('2025-05-01T12:00:00Z');
    assert.equal(daysUntil(new Date('2025-05-15T12:00:00Z'), now), 14);
    assert.equal(daysUntil(new Date('2025-05-02T11:00:00Z'), now), 0);
    assert.equal(daysUntil(new Date('2025-05-01T12:00:00Z'), now), 0);
    assert.equal(daysUntil(new Date('2025-05-01T11:00:00Z'), now), -1);
    assert.equal(daysUntil(new Date('2025-04-21T12:00:00Z'), now), -10);
    assert.equal(reminderCutoff(now).toISOString(), '2025-05-15T12:00:00.000Z');
    assert.equal(reminderCutoff(now, 1).toISOString(), '2025-05-02T12:00:00.000Z');
  });
});
