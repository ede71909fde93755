// A step-up's token pair replaces the session's refresh token (decision 880): the one held before is
// spent, so a copy taken earlier cannot mint access tokens that carry the owner's fresh second factor,
// and presenting it is a leak that ends the session, as any spent refresh token's is (decision 001).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../../../src/platform/clock.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import type { TestApp } from '../../helpers/test-app.ts';
import { startPasskeyApp, type PasskeyApp } from './passkey-fixtures.ts';
import { startTwoFactorApp, type TwoFactorApp } from './two-factor-fixtures.ts';

type Pair = { access_token: string; refresh_token: string };

describe('a step-up with a code replaces the refresh token of its session', () => {
  const clock = fixedClock('2026-03-01T12:00:05.000Z');
  let f: TwoFactorApp;
  let t: TestApp;
  before(async () => {
    f = await startTwoFactorApp(clock);
    t = f.t;
  });
  after(async () => {
    await t.close();
  });
  const bearer = (pair: Pair) => ({ authorization: `Bearer ${pair.access_token}` });

  it('the refresh token held before it is spent: presented, it ends the session', async () => {
    const user = await f.enrolled();
    const signedIn = await f.post('/api/auth/2fa/verify', {
      mfa_token: await f.challenge(user),
      code: f.codeAt(user.secret),
    });
    assert.equal(signedIn.statusCode, 200, signedIn.body);
    const before = signedIn.json<Pair>();
    // Someone copies the session's refresh token; the owner's second factor then ages out and they step up.
    clock.advance(11 * 60_000);
    const stepped = await f.post('/api/auth/2fa/step-up', { code: f.codeAt(user.secret) }, bearer(before));
    assert.equal(stepped.statusCode, 200, stepped.body);
    // The owner's chain goes on from the step-up's pair.
    const owners = await f.post('/api/auth/refresh', { refresh_token: stepped.json<Pair>().refresh_token });
    assert.equal(owners.statusCode, 200, owners.body);
    assert.equal((await f.me(owners.json<Pair>().access_token)).statusCode, 200);

    // The copy would have minted an access token carrying the owner's fresh second factor.
    assertDetail(await f.post('/api/auth/refresh', { refresh_token: before.refresh_token }), 401);
    // A spent token presented again is a leak: the session ends for whoever holds it.
    assertDetail(await f.post('/api/auth/refresh', { refresh_token: owners.json<Pair>().refresh_token }), 401);
    assert.equal((await f.me(owners.json<Pair>().access_token)).statusCode, 401);
  });
});

describe('a step-up with a passkey replaces the refresh token of its session', () => {
  const clock = fixedClock('2026-03-01T12:00:05.000Z');
  let p: PasskeyApp;
  before(async () => {
    p = await startPasskeyApp(clock);
  });
  after(async () => {
    await p.t.close();
  });

  it('the refresh token held before it is spent: presented, it ends the session', async () => {
    const user = await p.passkeyUser();
    clock.advance(11 * 60_000);
    const stepped = await p.ceremony(user.passkey, { purpose: 'step-up' }, { headers: user.headers });
    assert.equal(stepped.answer.statusCode, 200, stepped.answer.body);
    const renewed = stepped.answer.json<Pair>();

    assertDetail(await p.post('/api/auth/refresh', { refresh_token: user.refreshToken }), 401);
    assertDetail(await p.post('/api/auth/refresh', { refresh_token: renewed.refresh_token }), 401);
    const me = await p.t.app.inject({ method: 'GET', url: '/api/auth/me', headers: p.bearer(renewed.access_token) });
    assert.equal(me.statusCode, 401);
  });
});
