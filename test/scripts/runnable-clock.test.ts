// The arithmetic of the test runner's file clock (decision 480) on readings chosen here: what a real
// process tree does is shown by run-tests.test.ts; the cases below are those a machine cannot be made
// to produce on demand (threads that wait on each other, a thread that appears between readings).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runnableClock, type Schedstat } from '../../scripts/ready-wait.mjs';

/** A clock over readings given one at a time: `step(ms, tasks)` moves time on and sets what is read. */
function scripted() {
  let at = 0;
  let tasks = new Map<string, Schedstat>();
  const clock = runnableClock(1, { read: () => tasks, now: () => at });
  return (ms: number, next: Record<string, [run: number, wait: number]>) => {
    at += ms;
    tasks = new Map(Object.entries(next).map(([task, [run, wait]]) => [task, { run, wait }]));
    return clock.tick();
  };
}

describe("the test runner's file clock", () => {
  it('charges a tree that waits on an event its wall time', () => {
    const step = scripted();
    step(1000, { 10: [5, 1] });
    assert.deepEqual(step(1000, { 10: [5, 1] }), { chargedMs: 1999, wallMs: 2000, waitedMs: 1, ranMs: 5 });
  });

  it('does not charge the time its threads waited for a core', () => {
    const step = scripted();
    step(1000, { 10: [100, 900] });
    // A process the file started (a browser) waits too; a thread seen for the first time counts whole.
    const totals = step(1000, { 10: [150, 1500], 20: [50, 300] });
    assert.equal(totals.waitedMs, 1800);
    assert.equal(totals.chargedMs, 200);
  });

  it('charges at least the CPU time of threads that wait on each other', () => {
    const step = scripted();
    // Three threads busy on two cores: each waits a third of the interval, more than all of it summed.
    const totals = step(900, { 10: [600, 300], 11: [600, 300], 12: [600, 300] });
    assert.equal(totals.waitedMs, 900);
    assert.equal(totals.chargedMs, 1800);
  });

  it('takes back nothing when a thread ends and its id is given to a new one', () => {
    const step = scripted();
    step(1000, { 10: [50, 500], 11: [50, 400] });
    // Thread 11 ended; the new thread 11 has run and waited less than the old one had.
    const totals = step(1000, { 10: [100, 900], 11: [10, 20] });
    assert.equal(totals.waitedMs, 900 + 400);
    assert.equal(totals.chargedMs, 100 + 600);
  });
});
