import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomRequestId } from './request-ids.ts';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('are version 4 UUIDs, none repeated across several batches', () => {
    const ids = Array.from({ length: 5_000 }, randomRequestId);
    for (const id of ids) assert.match(id, V4);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('use every hexadecimal digit in every random position, so each batch is drawn afresh', () => {
    // 5,000 ids span about twenty batches; a batch rendered twice, or a position left constant, shows here.
    const ids = Array.from({ length: 5_000 }, randomRequestId);
    for (let position = 0; position < 36; position++) {
      if ([8, 13, 14, 18, 19, 23].includes(position)) continue; // dashes, the version and the variant
      const digits = new Set(ids.map((id) => id[position]));
      assert.equal(digits.size, 16, `position ${position}: ${[...digits].sort().join('')}`);
    }
    const variants = new Set(ids.map((id) => id[19]));
    assert.deepEqual([...variants].sort(), ['8', '9', 'a', 'b']);
  });
});
