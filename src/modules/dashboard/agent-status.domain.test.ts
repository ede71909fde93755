import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentStatus } from './agent-status.domain.ts';

describe('agent status', () => {
  const now = new Date('2031-03-01T12:00:00.000Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const MIN = 60_000;

  it('is active when seen within 15 minutes, the bound included', () => {
    assert.equal(agentStatus(ago(0), now), 'active');
    assert.equal(agentStatus(ago(15 * MIN), now), 'active');
    assert.equal(agentStatus(new Date(now.getTime() + 5 * MIN), now), 'active', 'a fast clock counts as just seen');
  });

  it('is idle after 15 minutes and up to 24 hours', () => {
    assert.equal(agentStatus(ago(15 * MIN + 1), now), 'idle');
    assert.equal(agentStatus(ago(24 * 60 * MIN), now), 'idle');
  });

  it('is silent after 24 hours or when never seen', () => {
    assert.equal(agentStatus(ago(24 * 60 * MIN + 1), now), 'silent');
    assert.equal(agentStatus(ago(90 * 24 * 60 * MIN), now), 'silent');
    assert.equal(agentStatus(null, now), 'silent');
  });

  it('takes other thresholds', () => {
    assert.equal(agentStatus(ago(2 * MIN), now, { activeWithinMs: MIN, idleWithinMs: 5 * MIN }), 'idle');
  });
});
