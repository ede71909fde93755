import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryAfterSeconds } from './adapters/linear-client.ts';
import {
  isIdentifier,
  keyedIssueId,
  parseStatesFilter,
  priorityLabel,
  resolveState,
  uniqueNames,
} from './tracker.domain.ts';

describe('tracker rules', () => {
  const states = [
    { id: '1', name: 'Backlog', type: 'backlog', position: 0 },
    { id: '2', name: 'Review', type: 'started', position: 3 },
    { id: '3', name: 'In Progress', type: 'started', position: 2 },
    { id: '4', name: 'Started', type: 'completed', position: 4 },
  ];

  it('resolves a state by name first (case-insensitive), then by the first state of a type', () => {
    assert.equal(resolveState(states, 'in progress')?.id, '3');
    assert.equal(resolveState(states, 'started')?.id, '4', 'a state named like a type wins');
    assert.equal(resolveState(states.slice(0, 3), 'started')?.id, '3', 'lowest position of the type');
    assert.equal(resolveState(states, 'shipped'), undefined);
  });

  it('splits a states filter into types and names, dropping blanks and repeats', () => {
    assert.deepEqual(parseStatesFilter('Todo, started,,STARTED, in review ,todo'), {
      stateTypes: ['started'],
      stateNames: ['Todo', 'in review'],
    });
    assert.deepEqual(parseStatesFilter(undefined), { stateTypes: [], stateNames: [] });
  });

  it('labels priorities as Linear does, 3 being medium', () => {
    assert.deepEqual([0, 1, 2, 3, 4].map(priorityLabel), ['No priority', 'Urgent', 'High', 'Medium', 'Low']);
  });

  it('recognises identifiers and de-duplicates label names case-insensitively', () => {
    assert.ok(isIdentifier('ENG-42'));
    assert.ok(isIdentifier('eng-42'));
    assert.ok(!isIdentifier('ENG42'));
    assert.ok(!isIdentifier('42-ENG'));
    assert.deepEqual(uniqueNames(['bug', ' Bug ', '', 'ci']), ['bug', 'ci']);
  });

  it("waits as long as Linear's rate-limit headers say, clamped to 1 s..1 h", () => {
    const now = new Date('2030-01-01T00:00:00.000Z');
    const reset = (value: number) => new Headers({ 'x-ratelimit-requests-reset': String(value) });
    assert.equal(retryAfterSeconds(reset(now.getTime() + 30_000), now), 30);
    assert.equal(retryAfterSeconds(reset(now.getTime() / 1000 + 90), now), 90, 'epoch seconds are accepted too');
    assert.equal(retryAfterSeconds(reset(now.getTime() - 5000), now), 1);
    assert.equal(retryAfterSeconds(new Headers({ 'retry-after': '12' }), now), 12);
    assert.equal(retryAfterSeconds(new Headers(), now), 60);
  });

  it('derives one version-4 UUID per actor and idempotency key', () => {
    const id = keyedIssueId('user-1', 'key-1');
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(keyedIssueId('user-1', 'key-1'), id);
    assert.notEqual(keyedIssueId('user-2', 'key-1'), id);
    assert.notEqual(keyedIssueId('user-1', 'key-2'), id);
  });
});
