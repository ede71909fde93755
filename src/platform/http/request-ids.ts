// Random (version 4) UUIDs for request ids, made in batches. `crypto.randomUUID()` draws its random
// bytes in batches too, but renders each id from twenty string pieces: about half a kilobyte of
// garbage per id, on every answer, the micro-cache's included (decision 315). Here a batch of ids is
// written as text into one buffer when its random bytes are drawn and made one string, and each id is
// a 36-character slice of that string: V8 makes it a view of the batch, not a copy, and no call into
// Buffer's native code is made per id (decision 360).
import { randomFillSync } from 'node:crypto';

const BATCH = 256;
const LENGTH = 36;
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const DASH = 0x2d;
const random = Buffer.alloc(16 * BATCH);
const text = Buffer.alloc(LENGTH * BATCH);
let next = BATCH;
/** The batch's ids as one string, 36 characters each. */
let batch = '';

function refill(): void {
  randomFillSync(random);
  let at = 0;
  for (let id = 0; id < BATCH; id++) {
    const from = id * 16;
    // RFC 9562 section 5.4: version 4 in the high nibble of byte 6, variant 10 in the top bits of byte 8.
    random[from + 6] = (random[from + 6]! & 0x0f) | 0x40;
    random[from + 8] = (random[from + 8]! & 0x3f) | 0x80;
    for (let byte = 0; byte < 16; byte++) {
      if (byte === 4 || byte === 6 || byte === 8 || byte === 10) text[at++] = DASH;
      const value = random[from + byte]!;
      text[at++] = HEX[value >> 4]!;
      text[at++] = HEX[value & 0x0f]!;
    }
  }
  batch = text.toString('latin1');
  next = 0;
}

/** A random UUID, `xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx` in lower case, as `crypto.randomUUID()` gives. */
export function randomRequestId(): string {
  if (next === BATCH) refill();
  const start = next++ * LENGTH;
  return batch.slice(start, start + LENGTH);
}
