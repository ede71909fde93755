// The durable outbox on the real database, as workers share it: claiming with SKIP LOCKED, crash
// recovery, and a stop that finishes the batch in hand. Enqueue, delivery and retries are in
// outbox-delivery.test.ts.
import assert from 'node:assert/strict';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { systemClock } from '../../../src/platform/clock.ts';
import { openDatabase, type Database } from '../../../src/platform/db/database.ts';
import { RateLimited } from '../../../src/platform/outbox/outbox.ts';
import { createOutboxWorker, type OutboxWorker } from '../../../src/platform/outbox/outbox-worker.ts';
import { testDatabaseUrl } from '../../helpers/test-app.ts';
import { deferred, enqueue, freshOutbox, logger, type OutboxBed, sleep, T0 } from './outbox-fixtures.ts';

describe('outbox', () => {
  let database: Database;
  let clock: OutboxBed['clock'];
  let worker: OutboxBed['worker'];
  let rowById: OutboxBed['rowById'];

  beforeEach(async () => {
    ({ database, clock, worker, rowById } = await freshOutbox());
  });

  describe('crash recovery', () => {
    it(
      'takes over a row whose worker stopped answering once its lease ran out; the ' +
        "late worker's outcome is ignored",
      async () => {
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
      },
    );

    it(
      'ignores the late outcome of a worker whose lease ran ' + 'out, also after the next worker gave its attempt back',
      async () => {
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
      },
    );
  });

  describe('waking (docs/decisions/620)', () => {
    // Each worker here would poll only once a minute: whatever it delivers sooner, it was woken for.
    const SLEEPY = { pollMs: 60_000, idlePollMs: 60_000 };
    const started: OutboxWorker[] = [];
    const extraPools: Database[] = [];
    afterEach(async () => {
      await Promise.all(started.splice(0).map((w) => w.stop()));
      await Promise.all(extraPools.splice(0).map((pool) => pool.close()));
    });

    /** A started worker on the real clock, and each delivered row's id as it comes. */
    function sleepyWorker(options: { leaseMs?: number } = {}) {
      const delivered = new Map<string, ReturnType<typeof deferred>>();
      const deliveredAt = new Map<string, number>();
      const arrival = (id: string) => {
        if (!delivered.has(id)) delivered.set(id, deferred());
        return delivered.get(id)!;
      };
      const w = createOutboxWorker({ database, clock: systemClock, logger, ...SLEEPY, ...options });
      w.register('chat.post', async (_payload, row) => {
        deliveredAt.set(row.id, Date.now());
        arrival(row.id).resolve();
      });
      started.push(w);
      /** Resolves when `id` is delivered; rejects after `withinMs`. */
      const deliveredWithin = (id: string, withinMs: number) =>
        Promise.race([
          arrival(id).promise,
          sleep(withinMs).then(() => {
            throw new Error(`row ${id} was not delivered within ${withinMs} ms`);
          }),
        ]);
      return { worker: w, deliveredWithin, deliveredAt };
    }

    it('delivers a row within a second of its transaction committing, also when another instance enqueued it', async () => {
      const { worker: w, deliveredWithin } = sleepyWorker();
      const first = (await enqueue({ kind: 'chat.post', payload: {} }, new Date(), database.db))!;
      w.start();
      await deliveredWithin(first, 5_000);

      const inTransaction = await database.db.transaction(
        async (tx) => (await enqueue({ kind: 'chat.post', payload: { n: 1 } }, new Date(), tx))!,
      );
      await deliveredWithin(inTransaction, 1_000);

      // On PostgreSQL, another instance: a pool of its own.
      const url = await testDatabaseUrl();
      const other = url ? await openDatabase({ url, poolSize: 1 }) : database;
      if (url) extraPools.push(other);
      const fromOther = (await enqueue({ kind: 'chat.post', payload: { n: 2 } }, new Date(), other.db))!;
      await deliveredWithin(fromOther, 1_000);
    });

    it('sleeps until the earliest row is due, and delivers it then, not before', async () => {
      const { worker: w, deliveredWithin, deliveredAt } = sleepyWorker();
      const dueAt = new Date(Date.now() + 300);
      const id = (await enqueue({ kind: 'chat.post', payload: {}, availableAt: dueAt }, new Date(), database.db))!;
      w.start();
      await deliveredWithin(id, 2_000);
      assert.ok(deliveredAt.get(id)! >= dueAt.getTime(), 'delivered before it was due');
    });

    it("takes over a crashed worker's row when its lease runs out, without being told", async () => {
      const id = (await enqueue({ kind: 'chat.post', payload: {} }, new Date(), database.db))!;
      // The crashed worker: it claimed the row and never answers again.
      const hung = deferred();
      const entered = deferred();
      const crashed = createOutboxWorker({ database, clock: systemClock, logger, leaseMs: 300 });
      crashed.register('chat.post', async () => {
        entered.resolve();
        await hung.promise;
      });
      const crashedRun = crashed.runOnce();
      await entered.promise;

      const { worker: w, deliveredWithin } = sleepyWorker({ leaseMs: 300 });
      w.start();
      await deliveredWithin(id, 2_000);
      // The batch in hand is settled before stop returns.
      await w.stop();
      const row = await rowById(id);
      assert.deepEqual([row.status, row.attempts], ['done', 2]);
      hung.resolve();
      await crashedRun;
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

    it(
      'aborts the delivery in progress and gives back every row of the batch: ' +
        'pending, due, the attempt not counted',
      async () => {
        const ids = [];
        for (let i = 0; i < 3; i++)
          ids.push((await enqueue({ kind: 'chat.post', payload: { n: i } }, T0, database.db))!);
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
      },
    );
  });
});
