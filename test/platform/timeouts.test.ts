// The one bound on a wait (src/platform/timeouts.ts): outcomes, the timeout's error, and no stray
// rejection or timer left by the work that lost the race.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { probeWithin, settledWithin, TimedOut, withTimeout } from '../../src/platform/timeouts.ts';

const never = new Promise<never>(() => {});

describe('withTimeout', () => {
  it("answers the work's value or error when it settles first", async () => {
    assert.equal(await withTimeout(Promise.resolve(7), 1_000), 7);
    await assert.rejects(withTimeout(Promise.reject(new Error('boom')), 1_000), /boom/);
  });

  it('rejects with TimedOut, or the error asked for, when the work does not settle', async () => {
    await assert.rejects(withTimeout(never, 10), (error) => error instanceof TimedOut && error.ms === 10);
    await assert.rejects(
      withTimeout(never, 10, () => new RangeError('too slow')),
      RangeError,
    );
  });

  it('lets an answer that arrived while the event loop was blocked win over the timer that fired late', async () => {
    // The answering side lives in another process, so it answers while this one is blocked.
    const echo = spawn(process.execPath, [
      '-e',
      "process.stdin.on('data', () => process.stdout.write('pong')); process.stdout.write('ready')",
    ]);
    try {
      await once(echo.stdout, 'data');
      const answer = once(echo.stdout, 'data').then(([chunk]) => String(chunk));
      const raced = withTimeout(answer, 20);
      // Blocked in the check phase: the next turn of the loop runs the expired timer before it reads the pipe.
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          echo.stdin.write('ping');
          const until = Date.now() + 300;
          while (Date.now() < until);
          resolve();
        }),
      );
      assert.equal(await raced, 'pong');
    } finally {
      echo.kill();
    }
  });

  it('leaves no unhandled rejection when the abandoned work fails later', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      let fail!: (error: Error) => void;
      const late = new Promise<never>((_, reject) => (fail = reject));
      await assert.rejects(withTimeout(late, 5), TimedOut);
      fail(new Error('late'));
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});

describe('settledWithin', () => {
  it('answers true for work that resolves or rejects in time, false for work that does not', async () => {
    assert.equal(await settledWithin(Promise.resolve(), 1_000), true);
    assert.equal(await settledWithin(Promise.reject(new Error('down')), 1_000), true);
    assert.equal(await settledWithin(never, 10), false);
  });
});

describe('probeWithin', () => {
  it('is up with the latency rounded to 0.01 ms, down when the check fails, throws or hangs', async () => {
    assert.deepEqual(await probeWithin(async () => 1.23456, 1_000), { up: true, latencyMs: 1.23 });
    assert.deepEqual(await probeWithin(async () => Promise.reject(new Error('refused')), 1_000), { up: false });
    assert.deepEqual(
      await probeWithin(() => {
        throw new Error('sync');
      }, 1_000),
      { up: false },
    );
    assert.deepEqual(await probeWithin(() => never, 10), { up: false });
  });
});
