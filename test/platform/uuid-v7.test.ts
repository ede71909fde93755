// The app's UUIDv7 (decision 870): RFC 9562's layout, ids of one process in the order they were made (the
// counter within a millisecond, a fresh random counter at each new one), and random bits that differ.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUuidV7, uuidv7 as appUuidv7 } from '../../src/platform/uuid-v7.ts';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7', () => {
  // A source of its own: the app's (shared with other files in this process) keeps its own clock.
  const uuidv7 = createUuidV7();

  it('writes the time, the version and the variant where RFC 9562 puts them', () => {
    const ms = Date.UTC(2026, 11, 1, 2, 3, 4, 567);
    const id = uuidv7(ms);
    assert.match(id, V7);
    assert.equal(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16), ms);
  });

  it('makes ids that sort in the order they were made, within a millisecond and across the pool refills', () => {
    const ids: string[] = [];
    // Several thousand ids (the pool holds 256) over a few milliseconds, most sharing theirs.
    for (let i = 0; i < 5000; i++) ids.push(uuidv7(1_800_000_000_000 + Math.floor(i / 1000)));
    for (const id of ids) assert.match(id, V7);
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
    // The random tail differs between ids of one millisecond.
    assert.ok(new Set(ids.slice(0, 1000).map((id) => id.slice(-10))).size > 990);
  });

  it('keeps the order when the clock steps back', () => {
    const later = uuidv7(1_900_000_000_000);
    const earlierClock = uuidv7(1_899_999_999_000);
    assert.ok(earlierClock > later, `${earlierClock} after ${later}`);
  });

  it('the app’s ids carry the time they were made', () => {
    const before = Date.now();
    const id = appUuidv7();
    const after = Date.now();
    const ms = Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    assert.ok(ms >= before && ms <= after, `${ms} within [${before}, ${after}]`);
  });
});
