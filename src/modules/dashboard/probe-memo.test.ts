import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedClock } from '../../platform/clock.ts';
import { createProbeMemo, type ProbeOutcome } from './probe-memo.ts';

describe('probe memo', () => {
  const up: ProbeOutcome = { reachable: true, latencyMs: 4, error: null };
  const down: ProbeOutcome = { reachable: false, latencyMs: null, error: 'refused by https://user:pw@example.com/x' };

  it('probes once per minute by the clock, and again after', async () => {
    const clock = fixedClock('2031-01-01T00:00:00Z');
    const memo = createProbeMemo({ clock });
    let calls = 0;
    const probe = async () => {
      calls++;
      return up;
    };
    await memo.get('tracker', probe);
    clock.advance(59_999);
    const second = await memo.get('tracker', probe);
    assert.equal(calls, 1);
    assert.equal(second.checkedAt.toISOString(), '2031-01-01T00:00:00.000Z');
    clock.advance(1);
    await memo.get('tracker', probe);
    assert.equal(calls, 2);
  });

  it('shares one probe between concurrent callers', async () => {
    const memo = createProbeMemo({ clock: fixedClock('2031-01-01T00:00:00Z') });
    let calls = 0;
    // The probe answers only once all three callers have asked.
    let answer!: (outcome: ProbeOutcome) => void;
    const answered = new Promise<ProbeOutcome>((resolve) => (answer = resolve));
    const probe = () => {
      calls++;
      return answered;
    };
    const asked = [memo.get('redis', probe), memo.get('redis', probe), memo.get('redis', probe)];
    answer(up);
    const records = await Promise.all(asked);
    assert.equal(calls, 1);
    assert.ok(records.every((record) => record === records[0] && record.reachable));
  });

  it('keeps the last success through a failure, and a cleaned error with its time', async () => {
    const clock = fixedClock('2031-01-01T00:00:00Z');
    const memo = createProbeMemo({ clock });
    await memo.get('x', async () => up);
    clock.advance(60_000);
    const failed = await memo.get('x', async () => down);
    assert.equal(failed.reachable, false);
    assert.equal(failed.lastSuccessAt?.toISOString(), '2031-01-01T00:00:00.000Z');
    assert.equal(failed.lastErrorAt?.toISOString(), '2031-01-01T00:01:00.000Z');
    assert.equal(failed.lastError, 'refused by https://example.com');
    clock.advance(60_000);
    const back = await memo.get('x', async () => up);
    assert.deepEqual(
      [back.reachable, back.lastSuccessAt?.toISOString(), back.lastError],
      [true, '2031-01-01T00:02:00.000Z', 'refused by https://example.com'],
    );
  });

  it('answers unreachable when the probe throws or outlives the timeout', async (t) => {
    const memo = createProbeMemo({ clock: fixedClock('2031-01-01T00:00:00Z'), timeoutMs: 30 });
    const thrown = await memo.get('a', async () => {
      throw new Error('secret detail');
    });
    assert.deepEqual([thrown.reachable, thrown.lastError], [false, 'the check failed']);
    // The timeout's timer, moved by hand: the answer comes when 30 ms have passed, not before.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let settled = false;
    const hung = memo.get('b', () => new Promise<ProbeOutcome>(() => {})).finally(() => (settled = true));
    t.mock.timers.tick(29);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, 'still waiting at 29 ms');
    t.mock.timers.tick(1);
    const record = await hung;
    assert.deepEqual([record.reachable, record.lastError], [false, 'did not answer within 30 ms']);
  });
});
