// One call at a time per venue key, across instances, each with a sequence number greater than every
// one given before for that key (docs/decisions/280). Kraken refuses a nonce not greater than the last
// one it accepted for the key (`EAPI:Invalid nonce`), and ccxt takes its nonce from each instance's own
// clock: two instances, or two concurrent calls of one, can then reach Kraken with their nonces crossed.
// So a private call takes the key's turn, takes its nonce inside it, and gives the turn back only once
// its answer came (or could no longer come): the order Kraken receives nonces in is the order they
// were given in.
// - The turn is a lock in the shared store (Redis when set) behind an in-process queue, so that each
//   instance has at most one call polling for it; without Redis the in-process queue alone holds it.
// - The sequence is max(now in ms, last + 1), the last one kept in the shared store: instances whose
//   clocks differ still give growing numbers, in ccxt's own scale (milliseconds).
// - The lock and the number are taken in one step (one round trip to Redis), and the lock is given
//   back by its token (another): two per call (decision 335), where a lock, a read and a write of the
//   sequence and a release took four.
// - The lock is leased for one call's longest legitimate time; an instance that dies holding it holds
//   the key's calls up for that long at most. A call that cannot get the turn within that time is
//   refused unsent (429, the key's limit).
import type { Cache } from '../cache/cache.ts';
import { KeyLimitRefusal } from './key-limits.ts';

interface KeyTurnDeps {
  venue: string;
  label: () => string;
  prefix: string;
  /** The longest a call waits for room on its key's counters, which it does holding the turn. */
  maxWaitMs: number;
  now: () => number;
  store: <T>(operation: (c: Cache) => Promise<T>) => Promise<{ value: T; scope: 'shared' | 'local' }>;
  refused?: () => void;
}

/** Beyond the call's own bound, for the round trips to the store around it. */
const LEASE_MARGIN_MS = 1_000;
const POLL_MS = 5;
/** How long a key's last sequence is kept; past it, the clock alone is already greater. */
const SEQUENCE_TTL_MS = 24 * 3_600_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export function createKeyTurns(deps: KeyTurnDeps) {
  const queues = new Map<string, Promise<void>>();
  const lockKey = (key: string) => `${deps.prefix}:turn:${key}`;
  const sequenceKey = (key: string) => `${deps.prefix}:seq:${key}`;

  function refusal(waitedMs: number): KeyLimitRefusal {
    deps.refused?.();
    return new KeyLimitRefusal(
      deps.venue,
      `This key's calls at ${deps.label()} go one at a time (its nonces must arrive in order), and the ` +
        `calls before this one held it for ${Math.ceil(waitedMs / 1000)} s; nothing was sent, other keys' calls go on`,
      Math.max(1, waitedMs / 1000),
    );
  }

  /** Waits for the in-process call before this one, at most until the deadline; false if it did not end. */
  async function queued(before: Promise<void>, deadline: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
    });
    try {
      return await Promise.race([before.then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The key's lock and, with it, its next number: one round trip to the store per attempt. */
  async function lock(
    key: string,
    leaseMs: number,
    deadline: number,
  ): Promise<{ token: string; number: number } | undefined> {
    for (;;) {
      const { value: taken } = await deps.store((c) =>
        c.acquireNumbered(lockKey(key), leaseMs, {
          key: sequenceKey(key),
          floor: Math.floor(deps.now()),
          ttlMs: SEQUENCE_TTL_MS,
        }),
      );
      if (taken !== undefined) return taken;
      if (Date.now() + POLL_MS > deadline) return undefined;
      await sleep(POLL_MS);
    }
  }

  return {
    /**
     * Runs `work` in the key's turn with its next sequence number; `callMs` bounds the call itself (its
     * request timeout), `maxWaitMs` the wait for the turn where the call has less time than its lease (a
     * send that must be signed by a deadline). Throws a KeyLimitRefusal, nothing sent, when the turn does
     * not come in time.
     */
    async inTurn<T>(
      key: string,
      callMs: number,
      work: (sequence: number) => Promise<T>,
      maxWaitMs?: number,
    ): Promise<T> {
      const leaseMs = callMs + deps.maxWaitMs + LEASE_MARGIN_MS;
      const started = Date.now();
      const deadline = started + Math.min(leaseMs, Math.max(0, maxWaitMs ?? leaseMs));
      const before = queues.get(key) ?? Promise.resolve();
      let done!: () => void;
      const mine = new Promise<void>((resolve) => {
        done = resolve;
      });
      // The next caller waits for this one and, if this one gave up, for the one before it too.
      const tail = Promise.all([before, mine]).then(() => undefined);
      queues.set(key, tail);
      let token: string | undefined;
      try {
        if (!(await queued(before, deadline))) throw refusal(Date.now() - started);
        const taken = await lock(key, leaseMs, deadline);
        if (taken === undefined) throw refusal(Date.now() - started);
        token = taken.token;
        return await work(taken.number);
      } finally {
        if (token !== undefined) {
          const held = token;
          await deps.store((c) => c.release(lockKey(key), held)).catch(() => undefined);
        }
        done();
        if (queues.get(key) === tail) queues.delete(key);
      }
    },
  };
}
