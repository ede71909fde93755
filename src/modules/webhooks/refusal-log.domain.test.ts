import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRefusalTally } from './refusal-log.domain.ts';

const at = (seconds: number) => new Date(Date.UTC(2025, 5, 1, 12, 0, 0) + seconds * 1000);

describe('refusal tally', () => {
  it('logs the first refusal of a provider and reason, then counts the rest of the interval', () => {
    const tally = createRefusalTally(60_000);
    assert.deepEqual(tally.note('codehost', 'invalid', at(0)), [
      { kind: 'first', provider: 'codehost', reason: 'invalid' },
    ]);
    for (let i = 1; i <= 500; i++) assert.deepEqual(tally.note('codehost', 'invalid', at(i / 10)), []);
    assert.deepEqual(tally.due(at(59)), []);
    assert.deepEqual(tally.due(at(60)), [
      { kind: 'count', provider: 'codehost', reason: 'invalid', count: 500, since: at(0) },
    ]);
    // The interval is closed: the next refusal is a first again.
    assert.deepEqual(tally.note('codehost', 'invalid', at(61)), [
      { kind: 'first', provider: 'codehost', reason: 'invalid' },
    ]);
  });

  it('keeps providers and reasons apart', () => {
    const tally = createRefusalTally(60_000);
    assert.equal(tally.note('codehost', 'invalid', at(0)).length, 1);
    assert.equal(tally.note('codehost', 'missing', at(1)).length, 1);
    assert.equal(tally.note('database', 'invalid', at(2)).length, 1);
    assert.equal(tally.note('codehost', 'invalid', at(3)).length, 0);
  });

  it('reports a finished count with the next refusal when no timer has asked for it', () => {
    const tally = createRefusalTally(60_000);
    tally.note('edge', 'stale', at(0));
    tally.note('edge', 'stale', at(10));
    assert.deepEqual(tally.note('edge', 'stale', at(70)), [
      { kind: 'count', provider: 'edge', reason: 'stale', count: 1, since: at(0) },
      { kind: 'first', provider: 'edge', reason: 'stale' },
    ]);
  });

  it('says nothing for an interval with a single refusal, and hands over every count at shutdown', () => {
    const tally = createRefusalTally(60_000);
    tally.note('mailer', 'missing', at(0));
    assert.deepEqual(tally.due(at(120)), []);
    tally.note('mailer', 'missing', at(130));
    tally.note('mailer', 'missing', at(131));
    assert.deepEqual(tally.due(), [{ kind: 'count', provider: 'mailer', reason: 'missing', count: 1, since: at(130) }]);
  });
});
