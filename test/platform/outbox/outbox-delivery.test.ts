// The durable outbox on the real database: transactional enqueue, delivery, backoff and dead
// letters. Crash recovery, concurrent workers and stopping are in outbox-workers.test.ts.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { Database } from '../../../src/platform/db/database.ts';
import { backoffMs, PermanentFailure, RateLimited, RetryLater } from '../../../src/platform/outbox/outbox.ts';
import { enqueue, freshOutbox, type OutboxBed, T0 } from './outbox-fixtures.ts';

describe('outbox', () => {
  let database: Database;
  let clock: OutboxBed['clock'];
  let worker: OutboxBed['worker'];
  let rows: OutboxBed['rows'];
  let rowById: OutboxBed['rowById'];

  beforeEach(async () => {
    ({ database, clock, worker, rows, rowById } = await freshOutbox());
  });

  describe('enqueue', () => {
    it('writes nothing when the surrounding transaction rolls back', async () => {
      await assert.rejects(
        database.db.transaction(async (tx) => {
          await enqueue({ kind: 'mail.send', payload: { to: 'a@example.com' } }, T0, tx);
          throw new Error('the business change failed');
        }),
        /business change failed/,
      );
      assert.equal((await rows()).length, 0);
    });

    it('is committed with the transaction', async () => {
      await database.db.transaction(async (tx) => {
        await enqueue({ kind: 'mail.send', payload: { to: 'a@example.com' } }, T0, tx);
      });
      const [row] = await rows();
      assert.equal(row!.status, 'pending');
      assert.equal(row!.attempts, 0);
      assert.deepEqual(row!.payload, { to: 'a@example.com' });
    });

    it('a second message with the same dedupe key is dropped', async () => {
      const first = await enqueue({ kind: 'chat.post', payload: { n: 1 }, dedupeKey: 'delivery-1' }, T0, database.db);
      const second = await enqueue({ kind: 'chat.post', payload: { n: 2 }, dedupeKey: 'delivery-1' }, T0, database.db);
      assert.ok(first);
      assert.equal(second, null);
      const all = await rows();
      assert.equal(all.length, 1);
      assert.deepEqual(all[0]!.payload, { n: 1 });
    });
  });

  describe('delivery', () => {
    it('hands the payload to the handler and records the outcome', async () => {
      const id = (await enqueue({ kind: 'chat.post', payload: { text: 'hi' } }, T0, database.db))!;
      const seen: unknown[] = [];
      const w = worker();
      w.register('chat.post', async (payload) => {
        seen.push(payload);
        return 'recorded only: no webhook configured';
      });
      assert.equal(await w.runOnce(), 1);
      assert.deepEqual(seen, [{ text: 'hi' }]);
      const row = await rowById(id);
      assert.equal(row.status, 'done');
      assert.equal(row.attempts, 1);
      assert.equal(row.result, 'recorded only: no webhook configured');
      assert.equal(row.processedAt?.toISOString(), T0.toISOString());
      assert.equal(await w.runOnce(), 0);
    });

    it('claims only kinds it has a handler for, and nothing not yet due', async () => {
      await enqueue({ kind: 'mail.send', payload: {} }, T0, database.db);
      await enqueue({ kind: 'chat.post', payload: {}, availableAt: new Date(T0.getTime() + 60_000) }, T0, database.db);
      const w = worker();
      w.register('chat.post', async () => undefined);
      assert.equal(await w.runOnce(), 0);
      clock.advance(60_000);
      assert.equal(await w.runOnce(), 1);
      assert.deepEqual(await w.stats(), { pending: 1, processing: 0, dead: 0, done: 1 });
    });
  });

  describe('retries', () => {
    it('backs off exponentially from the base delay, with at most 20% jitter, capped at an hour', () => {
      for (const [attempt, base] of [
        [1, 2000],
        [2, 4000],
        [3, 8000],
        [6, 64_000],
      ] as const) {
        for (let i = 0; i < 50; i++) {
          const delay = backoffMs(attempt, 2000);
          assert.ok(delay >= base && delay <= base * 1.2, `attempt ${attempt}: ${delay}`);
        }
      }
      assert.ok(backoffMs(40, 2000) <= 3_600_000 * 1.2);
    });

    it('retries a failed delivery after the backoff, not before', async () => {
      const id = (await enqueue({ kind: 'chat.post', payload: {} }, T0, database.db))!;
      let calls = 0;
      const w = worker({ baseBackoffMs: 2000 });
      w.register('chat.post', async () => {
        calls++;
        if (calls < 3) throw new Error(`receiver answered 500 (${calls})`);
      });

      assert.equal(await w.runOnce(), 1);
      let row = await rowById(id);
      assert.equal(row.status, 'pending');
      assert.equal(row.lastError, 'receiver answered 500 (1)');
      const firstDelay = row.availableAt.getTime() - T0.getTime();
      assert.ok(firstDelay >= 2000 && firstDelay <= 2400, String(firstDelay));
      assert.equal(await w.runOnce(), 0, 'not due yet');

      clock.set(row.availableAt);
      assert.equal(await w.runOnce(), 1);
      row = await rowById(id);
      const secondDelay = row.availableAt.getTime() - clock.now().getTime();
      assert.ok(secondDelay >= 4000 && secondDelay <= 4800, String(secondDelay));

      clock.set(row.availableAt);
      assert.equal(await w.runOnce(), 1);
      row = await rowById(id);
      assert.equal(row.status, 'done');
      assert.equal(row.attempts, 3);
      assert.equal(row.lastError, null);
    });

    it("honours a handler's RetryLater delay when it is longer than the backoff", async () => {
      const id = (await enqueue({ kind: 'chat.post', payload: {} }, T0, database.db))!;
      let calls = 0;
      const w = worker();
      w.register('chat.post', async () => {
        if (++calls === 1) throw new RetryLater('429 from the receiver', 60_000);
      });
      await w.runOnce();
      const row = await rowById(id);
      assert.equal(row.availableAt.getTime(), T0.getTime() + 60_000);
      assert.equal(
        row.processedAt?.toISOString(),
        T0.toISOString(),
        'a failed attempt is dated, for the standing error',
      );
      clock.advance(59_000);
      assert.equal(await w.runOnce(), 0);
      clock.advance(1_000);
      assert.equal(await w.runOnce(), 1);
      assert.equal((await rowById(id)).status, 'done');
    });

    it('marks a dead letter after maxAttempts', async () => {
      const id = (await enqueue({ kind: 'chat.post', payload: {}, maxAttempts: 3 }, T0, database.db))!;
      const w = worker();
      let calls = 0;
      w.register('chat.post', async () => {
        calls++;
        throw new Error('still failing');
      });
      for (let i = 0; i < 6; i++) {
        await w.runOnce();
        clock.advance(3_600_000);
      }
      assert.equal(calls, 3);
      const row = await rowById(id);
      assert.equal(row.status, 'dead');
      assert.equal(row.attempts, 3);
      assert.equal(row.lastError, 'still failing');
      assert.ok(row.processedAt);
      assert.equal((await w.stats()).dead, 1);
    });

    it(
      'gives the attempt back when the receiver asks us to ' + 'wait: rate limiting alone never makes a dead letter',
      async () => {
        const id = (await enqueue({ kind: 'chat.post', payload: {}, maxAttempts: 2 }, T0, database.db))!;
        let calls = 0;
        const w = worker();
        w.register('chat.post', async () => {
          if (++calls <= 5) throw new RateLimited('429 from the receiver', 5_000);
          return 'delivered';
        });
        for (let i = 1; i <= 5; i++) {
          assert.equal(await w.runOnce(), 1);
          const row = await rowById(id);
          assert.deepEqual(
            [row.status, row.attempts, row.lastError],
            ['pending', 0, '429 from the receiver'],
            `after 429 number ${i}`,
          );
          assert.equal(
            row.availableAt.getTime(),
            clock.now().getTime() + 5_000,
            'exactly the wait asked for, not the backoff',
          );
          clock.advance(5_000);
        }
        assert.equal(await w.runOnce(), 1);
        const row = await rowById(id);
        assert.deepEqual([row.status, row.attempts, row.result], ['done', 1, 'delivered']);
      },
    );

    it('still counts every other RetryLater as an attempt', async () => {
      const id = (await enqueue({ kind: 'chat.post', payload: {}, maxAttempts: 2 }, T0, database.db))!;
      const w = worker();
      w.register('chat.post', async () => {
        throw new RetryLater('503 from the receiver', 1_000);
      });
      await w.runOnce();
      clock.advance(3_600_000);
      await w.runOnce();
      assert.deepEqual([(await rowById(id)).status, (await rowById(id)).attempts], ['dead', 2]);
    });

    it('marks a dead letter at once on PermanentFailure', async () => {
      const id = (await enqueue({ kind: 'chat.post', payload: {} }, T0, database.db))!;
      const w = worker();
      w.register('chat.post', async () => {
        throw new PermanentFailure('400 invalid_payload');
      });
      await w.runOnce();
      const row = await rowById(id);
      assert.equal(row.status, 'dead');
      assert.equal(row.attempts, 1);
      assert.equal(row.lastError, '400 invalid_payload');
    });
  });
});
