import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryAfterMs } from './retry-after.ts';

describe('Retry-After', () => {
  const now = Date.parse('2026-11-24T10:00:00Z');
  const of = (value?: string) => retryAfterMs(new Headers(value === undefined ? {} : { 'retry-after': value }), now);

  it('reads delta-seconds and HTTP-dates, never a wait in the past', () => {
    assert.equal(of('0'), 0);
    assert.equal(of('120'), 120_000);
    assert.equal(of('Tue, 24 Nov 2026 10:00:30 GMT'), 30_000);
    assert.equal(of('Tue, 24 Nov 2026 09:00:00 GMT'), 0);
  });

  it('answers undefined when the header is absent, empty or unreadable', () => {
    assert.equal(of(), undefined);
    assert.equal(of(''), undefined);
    assert.equal(of('soon'), undefined);
    assert.equal(of('-5'), undefined);
  });
});
