// scrypt password hashes in a self-describing format, so parameters can be raised later.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { unavailable } from '../http/errors.ts';

/**
 * scrypt runs on libuv's thread pool (four threads unless UV_THREADPOOL_SIZE says otherwise), which
 * every file and DNS operation shares too. At most SLOTS hashes run at once, taken in this order: a
 * signed-in session's check of its own password; a new hash (sign-up, password change) while none runs,
 * so sign-ups always have a slot; a sign-in's check; more new hashes, up to HASH_SLOTS. A flood of
 * sign-ups slows sign-ups, not logins (decision 002). A sign-in's check costs a hash whether the
 * account exists or not (timing), so anyone can ask for them: their queue is bounded, and past its
 * bound a sign-in is refused (503, Retry-After) without hashing, so a flood of them from many addresses
 * makes sign-ins wait at most that queue's length, and delays no signed-in check nor sign-up (decision 735).
 * A sign-up's hash is anyone's to ask for too (the per-address hourly limit bounds one address, not many):
 * the sign-ups waiting for a slot are bounded the same way, and one past the bound is refused unhashed
 * (decision 1080).
 */
const SLOTS = 4;
const HASH_SLOTS = 2;
/**
 * Sign-in checks that may wait for a slot; one more, when no slot is free, is refused. At ~50 ms a check
 * on four threads (fewer cores make it longer), about 0.4 s of waiting.
 */
export const SIGN_IN_WAITING = 32;
/** The Retry-After of a refused sign-in (seconds): a full queue drains well within it. */
const SIGN_IN_RETRY_SECONDS = 1;
/**
 * Sign-ups' hashes that may wait for a slot; one more is refused. Sign-ups have one slot to themselves and
 * at most two: at ~50 ms a hash, under a second of waiting.
 */
export const SIGN_UP_WAITING = 16;
/** Sign-ups waiting for a slot now, in this process. */
let signUpsWaiting = 0;
type Lane = 'check' | 'hash' | 'sign-in';
const waiting: Record<Lane, (() => void)[]> = { check: [], hash: [], 'sign-in': [] };
const running: Record<Lane, number> = { check: 0, hash: 0, 'sign-in': 0 };
const done: Record<Lane, number> = { check: 0, hash: 0, 'sign-in': 0 };

/** Password work of this process so far, and what waits for a slot (exported as metrics). */
export function passwordWork(): { hashed: number; checked: number; waiting: number } {
  return {
    hashed: done.hash,
    checked: done.check + done['sign-in'],
    waiting: waiting.check.length + waiting.hash.length + waiting['sign-in'].length,
  };
}

function nextLane(): Lane | undefined {
  if (waiting.check.length > 0) return 'check';
  if (waiting.hash.length > 0 && running.hash === 0) return 'hash';
  if (waiting['sign-in'].length > 0) return 'sign-in';
  if (waiting.hash.length > 0 && running.hash < HASH_SLOTS) return 'hash';
  return undefined;
}

function startWaiting(): void {
  while (running.check + running.hash + running['sign-in'] < SLOTS) {
    const lane = nextLane();
    if (!lane) return;
    running[lane] += 1;
    waiting[lane].shift()!();
  }
}

/** `work` once a slot of `lane` is free; `started` as it takes the slot. */
async function inLane<T>(lane: Lane, work: () => Promise<T>, started?: () => void): Promise<T> {
  await new Promise<void>((resolve) => {
    waiting[lane].push(resolve);
    startWaiting();
  });
  started?.();
  try {
    return await work();
  } finally {
    done[lane] += 1;
    running[lane] -= 1;
    startWaiting();
  }
}

const scrypt = (
  lane: Lane,
  password: string,
  salt: Buffer,
  keylen: number,
  options: ScryptOptions,
  started?: () => void,
) =>
  inLane(
    lane,
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
      ),
    started,
  );

const slotsFull = () => running.check + running.hash + running['sign-in'] >= SLOTS;

/** scrypt's work factor: what one hash costs in CPU (N × r) and memory (128 × N × r bytes). */
export interface PasswordCost {
  N: number;
  r: number;
  p: number;
}

/**
 * N=2^15, r=8, p=1: OWASP's scrypt recommendation; ~50 ms and 32 MiB per hash (decision 002). What
 * every app hashes with unless its platform is handed another cost in code: no setting or
 * environment variable lowers it (decision 305).
 */
export const PRODUCTION_PASSWORD_COST: Readonly<PasswordCost> = Object.freeze({ N: 32768, r: 8, p: 1 });

// scrypt refuses work needing more memory than this: twice the production cost's, and a hasher takes
// no cost over half of it, so every hash it writes verifies with room to spare.
const MAX_MEMORY = 64 * 1024 * 1024;
const KEY_LENGTH = 32;

export interface PasswordHasher {
  readonly cost: Readonly<PasswordCost>;
  /** A new hash at this hasher's cost, in the self-describing form `scrypt$N$r$p$salt$key`. */
  hash(password: string): Promise<string>;
  /**
   * `hash` for a sign-up, which anyone may ask for: refused (503 with Retry-After, nothing hashed) while
   * the sign-ups waiting for a slot are at their bound.
   */
  hashSignUp(password: string): Promise<string>;
  /** Whether the password is the stored hash's, at the cost the hash names (older costs still verify). */
  verify(password: string, stored: string): Promise<boolean>;
  /**
   * `verify` for a sign-in, which anyone may ask for: in the sign-in queue, and refused (503 with
   * Retry-After, nothing hashed) while that queue is full.
   */
  verifySignIn(password: string, stored: string): Promise<boolean>;
  /**
   * A hash of nobody at this hasher's cost, to verify against when the account does not exist, so
   * that the answer takes as long as for an account whose password was hashed here.
   */
  readonly dummyHash: string;
}

function checkedCost(cost: PasswordCost): Readonly<PasswordCost> {
  const { N, r, p } = cost;
  const powerOfTwo = Number.isInteger(N) && N > 1 && (N & (N - 1)) === 0;
  if (!powerOfTwo || !Number.isInteger(r) || r < 1 || !Number.isInteger(p) || p < 1 || 128 * N * r > MAX_MEMORY / 2)
    throw new Error(`unusable scrypt cost N=${N} r=${r} p=${p}`);
  return Object.freeze({ N, r, p });
}

/** Password hashing at one cost: the production one unless a caller (a test) names another. */
export function createPasswordHasher(
  cost: PasswordCost = PRODUCTION_PASSWORD_COST,
  options: { signInWaiting?: number; signUpWaiting?: number } = {},
): PasswordHasher {
  const { N, r, p } = checkedCost(cost);
  const signInWaiting = options.signInWaiting ?? SIGN_IN_WAITING;
  const signUpWaiting = options.signUpWaiting ?? SIGN_UP_WAITING;
  async function hash(password: string, started?: () => void): Promise<string> {
    const salt = randomBytes(16);
    const key = await scrypt('hash', password, salt, KEY_LENGTH, { N, r, p, maxmem: MAX_MEMORY }, started);
    return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
  }
  return {
    cost: { N, r, p },
    hash: (password) => hash(password),
    hashSignUp(password) {
      // Sign-ups waiting already means none starts now: this one would wait behind them.
      if (signUpsWaiting >= signUpWaiting)
        return Promise.reject(
          unavailable('Too many sign-ups are being processed; try again shortly', {
            headers: { 'retry-after': String(SIGN_IN_RETRY_SECONDS) },
          }),
        );
      signUpsWaiting += 1;
      return hash(password, () => {
        signUpsWaiting -= 1;
      });
    },
    verify: (password, stored) => verifyPassword('check', password, stored),
    verifySignIn(password, stored) {
      if (slotsFull() && waiting['sign-in'].length >= signInWaiting)
        return Promise.reject(
          unavailable('Too many sign-ins are being checked; try again shortly', {
            headers: { 'retry-after': String(SIGN_IN_RETRY_SECONDS) },
          }),
        );
      return verifyPassword('sign-in', password, stored);
    },
    dummyHash: `scrypt$${N}$${r}$${p}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEY_LENGTH).toString('base64')}`,
  };
}

async function verifyPassword(lane: Lane, password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, expected] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !expected) return false;
  const expectedKey = Buffer.from(expected, 'base64');
  const key = await scrypt(lane, password, Buffer.from(salt, 'base64'), expectedKey.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAX_MEMORY,
  });
  return timingSafeEqual(key, expectedKey);
}

/**
 * A hash no password matches, for an account whose password must end (decision 734): the production
 * cost's form with a random salt and a random key, so checking a password against it costs what any
 * check costs (nothing tells it apart by timing) and finding one would mean inverting scrypt.
 */
export function unknowablePasswordHash(): string {
  const { N, r, p } = PRODUCTION_PASSWORD_COST;
  return `scrypt$${N}$${r}$${p}$${randomBytes(16).toString('base64')}$${randomBytes(KEY_LENGTH).toString('base64')}`;
}

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
