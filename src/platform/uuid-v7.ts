// Time-ordered ids (UUIDv7, RFC 9562) for the rows the app names itself (the audit log's). The `uuid`
// package's v7 drew its 16 random bytes through WebCrypto for each id, a system call each (1.4 % of a live
// order's CPU, decision 870); here they come from a pool filled 4 KiB at a time. The layout and the
// monotonic counter are the package's (its `updateV7State`): within one millisecond each id is the last
// one's counter plus one, so ids made by this process sort in the order they were made.
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

/** 16 random bytes' offset in the pool, refilled when spent. */
function randomOffset(): number {
  if (used + 16 > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const at = used;
  used += 16;
  return at;
}

const HEX = Array.from({ length: 256 }, (_, i) => (i + 0x100).toString(16).slice(1));

/**
 * A source of UUIDv7s with its own monotonic state: 48 bits of Unix milliseconds, version 7, a 31-bit
 * counter (random at each new millisecond), 42 random bits. The app uses one (`uuidv7`); a test makes its
 * own, so the times it gives do not move the app's.
 */
export function createUuidV7(): (now?: number) => string {
  /** The last id's milliseconds and its 31-bit counter. */
  let lastMs = -Infinity;
  let seq = 0;
  return (now = Date.now()) => {
    const r = randomOffset();
    if (now > lastMs) {
      seq = ((pool[r + 6]! & 0x7f) << 24) | (pool[r + 7]! << 16) | (pool[r + 8]! << 8) | pool[r + 9]!;
      lastMs = now;
    } else {
      seq = (seq + 1) | 0;
      // The counter ran out within one millisecond: the next millisecond's, as the package does.
      if (seq === 0) lastMs++;
    }
    const ms = lastMs;
    const h = (byte: number) => HEX[byte & 0xff]!;
    return (
      h(ms / 0x10000000000) +
      h(ms / 0x100000000) +
      h(ms / 0x1000000) +
      h(ms / 0x10000) +
      '-' +
      h(ms / 0x100) +
      h(ms) +
      '-' +
      h(0x70 | ((seq >>> 28) & 0x0f)) +
      h(seq >>> 20) +
      '-' +
      h(0x80 | ((seq >>> 14) & 0x3f)) +
      h(seq >>> 6) +
      '-' +
      h(((seq << 2) & 0xff) | (pool[r + 10]! & 0x03)) +
      h(pool[r + 11]!) +
      h(pool[r + 12]!) +
      h(pool[r + 13]!) +
      h(pool[r + 14]!) +
      h(pool[r + 15]!)
    );
  };
}

/** The app's ids. */
export const uuidv7 = createUuidV7();
