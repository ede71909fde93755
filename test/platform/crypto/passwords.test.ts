// Password hashes at the production cost, which the other test files lower (decision 305): the
// stored form and its parameters, checks across costs, and the hash an unknown account is checked
// against. A sign-in's check waits in a bounded queue (decision 735): past it, 503 without hashing,
// and a signed-in check or a sign-up never waits behind sign-ins. A sign-up's hash waits in a bounded
// queue too (decision 1080).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createPasswordHasher,
  PRODUCTION_PASSWORD_COST,
  passwordWork,
} from '../../../src/platform/crypto/passwords.ts';
import { AppError } from '../../../src/platform/http/errors.ts';
import { TEST_PASSWORD_COST } from '../../helpers/password-cost.ts';

/** The parts of a stored hash: `scrypt$N$r$p$salt$key`, salt and key in base64. */
function parts(stored: string) {
  const [scheme, N, r, p, salt, key, ...rest] = stored.split('$');
  assert.equal(rest.length, 0, stored);
  return {
    scheme,
    cost: { N: Number(N), r: Number(r), p: Number(p) },
    salt: Buffer.from(salt!, 'base64'),
    key: Buffer.from(key!, 'base64'),
  };
}

describe('password hashes', () => {
  const production = createPasswordHasher();

  it("are scrypt at OWASP's N=2^15, r=8, p=1 unless a cost is handed in, with a 16-byte salt and a 32-byte key", async () => {
    assert.deepEqual(PRODUCTION_PASSWORD_COST, { N: 32768, r: 8, p: 1 });
    assert.deepEqual(production.cost, PRODUCTION_PASSWORD_COST);
    const stored = await production.hash('correct horse battery');
    const { scheme, cost, salt, key } = parts(stored);
    assert.equal(scheme, 'scrypt');
    assert.deepEqual(cost, { N: 32768, r: 8, p: 1 });
    assert.equal(salt.length, 16);
    assert.equal(key.length, 32);
    assert.equal(await production.verify('correct horse battery', stored), true);
    assert.equal(await production.verify('correct horse batterz', stored), false);
    assert.notEqual(await production.hash('correct horse battery'), stored, 'a new salt for every hash');
  });

  it('verify at the cost the stored hash names, whatever cost the checking app hashes at', async () => {
    const cheap = createPasswordHasher(TEST_PASSWORD_COST);
    const cheapHash = await cheap.hash('pw-12345678');
    assert.deepEqual(parts(cheapHash).cost, TEST_PASSWORD_COST);
    assert.equal(await production.verify('pw-12345678', cheapHash), true);
    assert.equal(await production.verify('pw-12345679', cheapHash), false);
    const strongHash = await production.hash('pw-12345678');
    assert.equal(await cheap.verify('pw-12345678', strongHash), true);
    assert.equal(await cheap.verify('pw-1234567', strongHash), false);
  });

  it("the hash of nobody, checked for an unknown account, has the app's own cost, so both answers take as long", async () => {
    for (const hasher of [production, createPasswordHasher(TEST_PASSWORD_COST)]) {
      const dummy = parts(hasher.dummyHash);
      const real = parts(await hasher.hash('pw-12345678'));
      assert.equal(dummy.scheme, real.scheme);
      assert.deepEqual(dummy.cost, real.cost);
      assert.equal(dummy.salt.length, real.salt.length);
      assert.equal(dummy.key.length, real.key.length);
      assert.equal(await hasher.verify('', hasher.dummyHash), false);
      assert.equal(await hasher.verify('pw-12345678', hasher.dummyHash), false);
    }
  });

  it('refuse a cost scrypt cannot run or that is not a power of two', () => {
    for (const cost of [
      { N: 1000, r: 8, p: 1 },
      { N: 1, r: 8, p: 1 },
      { N: 1024, r: 0, p: 1 },
      { N: 1024, r: 8, p: 0 },
      { N: 2 ** 20, r: 8, p: 1 },
    ])
      assert.throws(() => createPasswordHasher(cost), /unusable scrypt cost/);
  });
});

describe('the sign-in queue', () => {
  it('past its bound a sign-in is refused (503, Retry-After) unhashed; signed-in checks and sign-ups pass the queue', async () => {
    const bound = 2;
    // Sign-ins check against a production-cost hash (tens of ms each), the others at the test cost
    // (a few ms): whatever started before the queued sign-ins finishes long before the last of them.
    const hasher = createPasswordHasher(TEST_PASSWORD_COST, { signInWaiting: bound });
    const slow = await createPasswordHasher().hash('the owner');
    const fast = await hasher.hash('the owner');
    const finished: string[] = [];
    const signIns = Array.from({ length: 30 }, () =>
      hasher.verifySignIn('a guess', slow).then(
        (valid) => {
          assert.equal(valid, false);
          finished.push('sign-in');
          return 'checked';
        },
        (error: unknown) => {
          assert.ok(error instanceof AppError && error.status === 503, String(error));
          assert.equal(error.headers['retry-after'], '1');
          return 'refused';
        },
      ),
    );
    const signedIn = hasher.verify('the owner', fast).then((valid) => finished.push(`signed-in ${valid}`));
    const signUp = hasher.hash('a new account').then(() => finished.push('sign-up'));
    const outcomes = await Promise.all(signIns);
    await Promise.all([signedIn, signUp]);
    const checked = outcomes.filter((outcome) => outcome === 'checked').length;
    // Four slots run at once; beyond them only `bound` wait.
    assert.ok(checked >= 1 && checked <= 4 + bound, `${checked} sign-ins checked`);
    assert.equal(finished.filter((what) => what === 'sign-in').length, checked, 'a refused one hashed nothing');
    const lastSignIn = finished.lastIndexOf('sign-in');
    assert.ok(finished.indexOf('signed-in true') < lastSignIn, finished.join(', '));
    assert.ok(finished.indexOf('sign-up') < lastSignIn, finished.join(', '));
  });
});

describe('the sign-up queue', () => {
  it('past its bound a sign-up is refused (503, Retry-After) unhashed; signed-in checks, sign-ins and the operator pass it', async () => {
    const bound = 2;
    // Sign-ups hash at the production cost (tens of ms each), the others at the test cost (a few ms).
    const signUps = createPasswordHasher(PRODUCTION_PASSWORD_COST, { signUpWaiting: bound });
    const others = createPasswordHasher(TEST_PASSWORD_COST);
    const fast = await others.hash('the owner');
    const hashedBefore = passwordWork().hashed;
    const finished: string[] = [];
    const floods = Array.from({ length: 30 }, (_, i) =>
      signUps.hashSignUp(`new account ${i}`).then(
        (stored) => {
          assert.equal(parts(stored).cost.N, PRODUCTION_PASSWORD_COST.N);
          finished.push('sign-up');
          return 'hashed';
        },
        (error: unknown) => {
          assert.ok(error instanceof AppError && error.status === 503, String(error));
          assert.equal(error.headers['retry-after'], '1');
          return 'refused';
        },
      ),
    );
    const signedIn = others.verify('the owner', fast).then((valid) => finished.push(`signed-in ${valid}`));
    const signInCheck = others.verifySignIn('the owner', fast).then((valid) => finished.push(`sign-in ${valid}`));
    const operator = others.hash('an account the operator makes').then(() => finished.push('operator'));
    const outcomes = await Promise.all(floods);
    await Promise.all([signedIn, signInCheck, operator]);
    const hashed = outcomes.filter((outcome) => outcome === 'hashed').length;
    // At most two hashes run at once; beyond them only `bound` sign-ups wait.
    assert.ok(hashed >= 1 && hashed <= 2 + bound, `${hashed} sign-ups hashed`);
    assert.equal(passwordWork().hashed - hashedBefore, hashed + 1, 'a refused sign-up hashed nothing');
    const lastSignUp = finished.lastIndexOf('sign-up');
    for (const other of ['signed-in true', 'sign-in true'])
      assert.ok(finished.indexOf(other) < lastSignUp, finished.join(', '));
    // Once the queue drained, a sign-up is hashed again.
    assert.equal(parts(await signUps.hashSignUp('after the flood')).cost.N, PRODUCTION_PASSWORD_COST.N);
  });
});
