// The durable outbox on the real database: transactional enqueue, claiming with SKIP LOCKED,
// backoff, dead letters, crash recovery and a stop that finishes the batch in hand.
import assert from 'node:assert/strict';
import { after, beforeEach, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import { openDatabase, type Database } from '../../../src/platform/db/database.ts';
import { outbox } from '../../../src/platform/db/schema.ts';
import { createLogger } from '../../../src/platform/observability/logger.ts';
import {
  backoffMs,
  createOutboxWorker,
  outboxWriter,
  PermanentFailure,
  RateLimited,
  RetryLater,
  type OutboxWorkerOptions,
} from '../../../src/platform/outbox/outbox.ts';
import { resetDatabase, testDatabase, testDatabaseUrl } from '../../helpers/test-app.ts';

// The platform names no kind; these are the notifications module's, which the database's CHECK accepts.
const { enqueue } = outboxWriter(['chat.post', 'mail.send']);

const T0 = new Date('2025-03-01T12:00:00.000Z');
const logger = createLogger('silent');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('outbox', () => {
  let database: Database;
  let clock: ReturnType<typeof fixedClock>;
  const worker = (options: Partial<OutboxWorkerOptions> = {}) =>
    createOutboxWorker({ database, clock, logger, ...options });
  const rows = () => database.db.select().from(outbox).orderBy(outbox.createdAt);
  const rowById = async (id: string) => (await database.db.select().from(outbox).where(eq(outbox.id, id)))[0]!;

  beforeEach(async () => {
    database = await testDatabase();
    await resetDatabase(database);
    clock = fixedClock(T0);
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

    it('gives the attempt back when the receiver asks us to wait: rate limiting alone never makes a dead letter', async () => {
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
    });

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

  describe('crash recovery', () => {
    it("takes over a row whose worker stopped answering once its lease ran out; the late worker's outcome is ignored", async () => {
      const id = (await enqueue({ kind: 'chat.post', payload: {} }, T0, database.db))!;
      const stuck = deferred();
      const entered = deferred();
      const a = worker({ leaseMs: 30_000 });
      a.register('chat.post', async () => {
        entered.resolve();
        await stuck.promise;
        return 'from a';
      });
      const b = worker({ leaseMs: 30_000 });
      b.register('chat.post', async () => 'from b');

      const aRun = a.runOnce();
      await entered.promise;
      assert.equal((await rowById(id)).status, 'processing');
      assert.equal(await b.runOnce(), 0, 'the lease is still held');

      clock.advance(30_001);
      assert.equal(await b.runOnce(), 1, 'the expired lease is taken over');
      stuck.resolve();
      await aRun;

      const row = await rowById(id);
      assert.equal(row.status, 'done');
      assert.equal(row.attempts, 2);
      assert.equal(row.result, 'from b');
    });

    it('ignores the late outcome of a worker whose lease ran out, also after the next worker gave its attempt back', async () => {
      const id = (await enqueue({ kind: 'chat.post', payload: {} }, T0, database.db))!;
      const stuck = deferred();
      const entered = deferred();
      const a = worker({ leaseMs: 30_000 });
      a.register('chat.post', async () => {
        entered.resolve();
        await stuck.promise;
        return 'from a';
      });
      const b = worker({ leaseMs: 30_000 });
      b.register('chat.post', async () => {
        throw new RateLimited('429 from the receiver', 10_000);
      });

      const aRun = a.runOnce();
      await entered.promise;
      clock.advance(30_001);
      assert.equal(await b.runOnce(), 1, 'the expired lease is taken over');
      // Back to the count a claimed with, but pending: a's claim no longer matches.
      assert.deepEqual([(await rowById(id)).status, (await rowById(id)).attempts], ['pending', 1]);
      stuck.resolve();
      await aRun;
      const row = await rowById(id);
      assert.deepEqual(
        [row.status, row.attempts, row.result, row.lastError],
        ['pending', 1, null, '429 from the receiver'],
      );
    });
  });

  describe('concurrent workers', () => {
    const extraPools: Database[] = [];
    after(async () => {
      await Promise.all(extraPools.map((pool) => pool.close()));
    });

    it('never hand one row to two workers (FOR UPDATE SKIP LOCKED)', async () => {
      for (let i = 0; i < 50; i++) await enqueue({ kind: 'chat.post', payload: { n: i } }, T0, database.db);
      // On PostgreSQL the second group of workers uses a pool of its own, as another instance would.
      const url = await testDatabaseUrl();
      const second = url ? await openDatabase({ url, poolSize: 3 }) : database;
      if (url) extraPools.push(second);
      const handled: string[] = [];
      const byWorker = new Map<number, number>();
      const workers = [database, database, database, second, second, second].map((db, index) => {
        const w = createOutboxWorker({ database: db, clock, logger, batchSize: 3 });
        w.register('chat.post', async (_payload, row) => {
          handled.push(row.id);
          byWorker.set(index, (byWorker.get(index) ?? 0) + 1);
          await sleep(2);
        });
        return w;
      });
      await Promise.all(workers.map((w) => w.drain()));
      assert.equal(handled.length, 50);
      assert.equal(new Set(handled).size, 50, 'a row was handled twice');
      assert.deepEqual(await workers[0]!.stats(), { pending: 0, processing: 0, dead: 0, done: 50 });
      if (url) assert.ok(byWorker.size > 1, 'the work was shared');
    });
  });

  describe('stop', () => {
    it('waits for the batch in hand, then polls no more', async () => {
      const id = (await enqueue({ kind: 'chat.post', payload: {} }, T0, database.db))!;
      const release = deferred();
      const entered = deferred();
      let calls = 0;
      const w = worker({ pollMs: 10 });
      w.register('chat.post', async () => {
        calls++;
        entered.resolve();
        await release.promise;
      });
      w.start();
      await entered.promise;

      let stopped = false;
      const stopping = w.stop().then(() => {
        stopped = true;
      });
      await sleep(50);
      assert.equal(stopped, false, 'stop returned while a delivery was in hand');
      release.resolve();
      await stopping;
      assert.equal((await rowById(id)).status, 'done');

      await enqueue({ kind: 'chat.post', payload: {} }, T0, database.db);
      await sleep(50);
      assert.equal(calls, 1, 'a stopped worker does not poll');
    });

    it('aborts the delivery in progress and gives back every row of the batch: pending, due, the attempt not counted', async () => {
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await enqueue({ kind: 'chat.post', payload: { n: i } }, T0, database.db))!);
      const entered = deferred();
      const w = worker({ pollMs: 10 });
      w.register('chat.post', (_payload, _row, signal) => {
        entered.resolve();
        // A receiver that never answers: only the abort ends this delivery.
        return new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
        );
      });
      w.start();
      await entered.promise;
      await w.stop();
      for (const id of ids) {
        const row = await rowById(id);
        assert.equal(row.status, 'pending');
        assert.equal(row.attempts, 0);
        assert.equal(row.lockedUntil, null);
        assert.ok(row.availableAt <= clock.now());
      }
      // The next worker delivers each of them once.
      const delivered: unknown[] = [];
      const next = worker();
      next.register('chat.post', async (payload) => {
        delivered.push(payload.n);
      });
      await next.drain();
      assert.deepEqual(delivered.sort(), [0, 1, 2]);
      for (const id of ids) assert.equal((await rowById(id)).status, 'done');
    });
  });
});
