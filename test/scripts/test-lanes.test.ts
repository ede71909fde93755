// Which files a test run takes first, and which go to the lane of files that mostly wait (decision 1240).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planLanes } from '../../scripts/test-lanes.mjs';

// CPU seconds of each file's last run, and the seconds it could have run (wall time less its waits for a core).
const last: Record<string, [number, number]> = {
  'paces.test.ts': [6, 24],
  'renders.test.ts': [19, 36],
  'quick.test.ts': [0.3, 0.5],
  'waits-briefly.test.ts': [0.2, 3.9],
  'sleeps-long.test.ts': [3, 31],
  'busy-waiting.test.ts': [4, 10],
};
const cpu = (file: string) => last[file]?.[0];
const runnable = (file: string) => last[file]?.[1];
const files = ['new.test.ts', ...Object.keys(last)];

describe('the lanes of a test run', () => {
  it('puts files that could run 4 s or more and used under 40% of a core in a lane of their own, longest first', () => {
    const { queue, waiting } = planLanes(files, cpu, runnable);
    assert.deepEqual(waiting, ['sleeps-long.test.ts', 'paces.test.ts']);
    // The rest by CPU time, longest first; a file not run before first, as it may be long.
    assert.deepEqual(queue, [
      'new.test.ts',
      'renders.test.ts',
      'busy-waiting.test.ts',
      'quick.test.ts',
      'waits-briefly.test.ts',
    ]);
  });

  it('keeps every file in one queue, by CPU time, when the waiting files are not set apart', () => {
    const { queue, waiting } = planLanes(files, cpu, runnable, false);
    assert.deepEqual(waiting, []);
    assert.deepEqual(queue, [
      'new.test.ts',
      'renders.test.ts',
      'paces.test.ts',
      'busy-waiting.test.ts',
      'sleeps-long.test.ts',
      'quick.test.ts',
      'waits-briefly.test.ts',
    ]);
  });

  it('sets no file apart that has a CPU time but no runnable time yet (figures of an older run)', () => {
    const { waiting } = planLanes(files, cpu, (file) => (file === 'paces.test.ts' ? undefined : runnable(file)));
    assert.deepEqual(waiting, ['sleeps-long.test.ts']);
  });
});
