// scrypt password hashes in a self-describing format, so parameters can be raised later.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt runs on libuv's thread pool (four threads unless UV_THREADPOOL_SIZE says otherwise), which
 * every file and DNS operation shares too. At most SLOTS hashes run at once; new hashes (sign-up,
 * password changes) take at most HASH_SLOTS of them, and a waiting check (a login) always goes
 * first, so a flood of sign-ups slows sign-ups, not logins (decision 002).
 */
const SLOTS = 4;
const HASH_SLOTS = 2;
type Lane = 'check' | 'hash';
const waiting: Record<Lane, (() => void)[]> = { check: [], hash: [] };
const running: Record<Lane, number> = { check: 0, hash: 0 };
const done: Record<Lane, number> = { check: 0, hash: 0 };

/** Password work of this process so far, and what waits for a slot (exported as metrics). */
export function passwordWork(): { hashed: number; checked: number; waiting: number } {
  return { hashed: done.hash, checked: done.check, waiting: waiting.check.length + waiting.hash.length };
}

function startWaiting(): void {
  while (running.check + running.hash < SLOTS) {
    const lane: Lane | undefined =
      waiting.check.length > 0 ? 'check' : waiting.hash.length > 0 && running.hash < HASH_SLOTS ? 'hash' : undefined;
    if (!lane) return;
    running[lane] += 1;
    waiting[lane].shift()!();
  }
}

async function inLane<T>(lane: Lane, work: () => Promise<T>): Promise<T> {
  await new Promise<void>((resolve) => {
    waiting[lane].push(resolve);
    startWaiting();
  });
  try {
    return await work();
  } finally {
    done[lane] += 1;
    running[lane] -= 1;
    startWaiting();
  }
}

const scrypt = (lane: Lane, password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  inLane(
    lane,
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
      ),
  );

// N=2^15, r=8, p=1: OWASP's scrypt recommendation; ~50 ms and 32 MiB per hash.
const PARAMS = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt('hash', password, salt, KEY_LENGTH, PARAMS);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, expected] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !expected) return false;
  const expectedKey = Buffer.from(expected, 'base64');
  const key = await scrypt('check', password, Buffer.from(salt, 'base64'), expectedKey.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return timingSafeEqual(key, expectedKey);
}

/** A hash to compare against when the account does not exist, so timing does not reveal it. */
export const DUMMY_PASSWORD_HASH =
  'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/** A random password with upper, lower, digit and symbol, for administrator resets. */
export function generatePassword(length = 20): string {
  const sets = ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnopqrstuvwxyz', '23456789', '!@#$%^&*-_=+'];
  const all = sets.join('');
  const pick = (alphabet: string) => {
    // Rejection sampling keeps every character equally likely.
    const limit = 256 - (256 % alphabet.length);
    for (;;) {
      const byte = randomBytes(1)[0]!;
      if (byte < limit) return alphabet[byte % alphabet.length]!;
    }
  };
  const chars = sets.map(pick);
  while (chars.length < length) chars.push(pick(all));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomBytes(1)[0]! % (i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}
