// What a passkey ceremony refuses (issue 41, decision 204): a replayed answer, a tampered one, one
// made for another origin or RP ID (a phishing page's), one without user verification, a counter that
// goes backwards (a cloned authenticator), a passkey of another account than the options named; each
// 401, audited and counted in the login throttle. And a start whose RP ID does not fit its origins.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { assertDetail } from '../../helpers/error-assertions.ts';
import { FLAGS } from '../../helpers/software-authenticator.ts';
import { signIn } from '../../helpers/test-app.ts';
import { startPasskeyApp, type PasskeyApp } from './passkey-fixtures.ts';

const REFUSED = 'The passkey could not be verified';

describe('passkey ceremonies refuse', () => {
  const clock = fixedClock('2026-03-01T12:00:05.000Z');
  let p: PasskeyApp;
  before(async () => {
    p = await startPasskeyApp(clock);
  });
  after(async () => {
    await p.t.close();
  });

  it('a replayed answer: the challenge is spent, and an old assertion under a new challenge fails', async () => {
    const user = await p.passkeyUser();
    const first = await p.ceremony(user.passkey, { purpose: 'login' });
    assert.equal(first.answer.statusCode, 200, first.answer.body);
    const again = await p.verify({ challenge_token: first.started.challenge_token, response: first.response });
    assertDetail(again, 401, 'Invalid, used or expired challenge_token; ask for new options');
    const fresh = await p.options({ purpose: 'login' });
    const replayed = await p.verify({ challenge_token: fresh.challenge_token, response: first.response });
    assertDetail(replayed, 401, REFUSED);
    assert.deepEqual(
      (await p.auditOf(user.id)).filter((row) => row.action !== 'auth.passkey.register'),
      [{ action: 'auth.passkey_failed', details: { purpose: 'login', reason: 'invalid' } }],
    );
  });

  it('a challenge past its 5 minutes, and a step-up challenge without its session', async () => {
    const user = await p.passkeyUser();
    const started = await p.options<{ challenge: string }>({ purpose: 'login' });
    clock.advance(5 * 60_000 + 1);
    const late = await p.verify({
      challenge_token: started.challenge_token,
      response: p.authenticator.assert(user.passkey, started.options),
    });
    assertDetail(late, 401, 'Invalid, used or expired challenge_token; ask for new options');
    // A step-up challenge acts for the session that asked for it: without that session it is refused.
    const stepUp = await p.options<{ challenge: string }>({ purpose: 'step-up' }, user.headers);
    const anonymous = await p.verify({
      challenge_token: stepUp.challenge_token,
      response: p.authenticator.assert(user.passkey, stepUp.options),
    });
    assertDetail(anonymous, 401, 'Invalid, used or expired challenge_token; ask for new options');
  });

  it('a tampered signature or authenticator data', async () => {
    const user = await p.passkeyUser();
    for (const field of ['signature', 'authenticatorData'] as const) {
      const started = await p.options<{ challenge: string }>({ purpose: 'login', email: user.email });
      const response = p.authenticator.assert(user.passkey, started.options);
      const bytes = Buffer.from(response.response[field], 'base64url');
      bytes[bytes.length - 1]! ^= 0x01;
      response.response[field] = bytes.toString('base64url');
      assertDetail(await p.verify({ challenge_token: started.challenge_token, response }), 401, REFUSED);
    }
    const rows = await p.auditOf(user.id);
    assert.equal(rows.filter((row) => row.action === 'auth.passkey_failed').length, 2);
  });

  it("another origin or RP ID (a phishing page's), and an answer without user verification", async () => {
    const user = await p.passkeyUser();
    for (const lies of [
      { origin: 'https://evil.example' },
      { rpId: 'evil.example' },
      { flags: FLAGS.UP },
      { type: 'webauthn.create' },
    ]) {
      const { answer } = await p.ceremony(user.passkey, { purpose: 'login' }, { lies });
      assertDetail(answer, 401, REFUSED);
    }
  });

  it('a counter that goes backwards (a cloned authenticator), audited as such', async () => {
    const user = await p.passkeyUser();
    const ok = await p.ceremony(user.passkey, { purpose: 'login' });
    assert.equal(ok.answer.statusCode, 200, ok.answer.body);
    const used = user.passkey.counter - 1;
    const clone = await p.ceremony(user.passkey, { purpose: 'login' }, { lies: { counter: used } });
    assertDetail(clone.answer, 401, REFUSED);
    const rows = await p.auditOf(user.id);
    assert.deepEqual(rows.at(-1), {
      action: 'auth.passkey.clone_suspected',
      details: { purpose: 'login', reason: 'counter' },
    });
  });

  it('a passkey of another account than the e-mail or mfa_token named', async () => {
    const victim = await p.passkeyUser();
    const attacker = await p.passkeyUser();
    const named = await p.options<{ challenge: string }>({ purpose: 'login', email: victim.email });
    const byEmail = await p.verify({
      challenge_token: named.challenge_token,
      response: p.authenticator.assert(attacker.passkey, named.options),
    });
    assertDetail(byEmail, 401, REFUSED);
    const { token } = await p.mfaToken(victim);
    const mfa = await p.options<{ challenge: string }>({ purpose: 'mfa', mfa_token: token });
    const asSecondFactor = await p.verify({
      challenge_token: mfa.challenge_token,
      response: p.authenticator.assert(attacker.passkey, mfa.options),
    });
    assertDetail(asSecondFactor, 401, REFUSED);
    assert.deepEqual(
      (await p.auditOf(victim.id)).filter((row) => row.action === 'auth.passkey_failed').map((row) => row.details),
      [
        { purpose: 'login', reason: 'other_account' },
        { purpose: 'mfa', reason: 'other_account' },
      ],
    );
  });

  it('tells no one which e-mail has an account or a passkey: the same options, the same refusal', async () => {
    const withPasskey = await p.passkeyUser();
    const attacker = await p.passkeyUser();
    const withoutPasskey = await signIn(p.t.app, p.t.database);
    const outcomes = [];
    for (const email of [withPasskey.email, withoutPasskey.email, 'nobody-here@example.com']) {
      const started = await p.options<{ challenge: string }>({ purpose: 'login', email });
      const { challenge, ...rest } = started.options;
      const answer = await p.verify({
        challenge_token: started.challenge_token,
        response: p.authenticator.assert(attacker.passkey, started.options),
      });
      outcomes.push({ options: rest, status: answer.statusCode, body: answer.json() });
    }
    // The options differ only in their challenge; the attacker's own passkey completes none of the three.
    assert.deepEqual(outcomes[1], outcomes[0]);
    assert.deepEqual(outcomes[2], outcomes[0]);
    assert.deepEqual(outcomes[0]!.body, { detail: REFUSED });
    assert.equal(outcomes[0]!.status, 401);
    assert.deepEqual((outcomes[0]!.options as { allowCredentials: unknown[] }).allowCredentials, []);
    // The account's own passkey still signs in with its e-mail.
    const own = await p.ceremony(withPasskey.passkey, { purpose: 'login', email: withPasskey.email });
    assert.equal(own.answer.statusCode, 200, own.answer.body);
  });

  it("another session's step-up challenge", async () => {
    const user = await p.passkeyUser();
    const started = await p.options<{ challenge: string }>({ purpose: 'step-up' }, user.headers);
    const otherSession = await p.ceremony(user.passkey, { purpose: 'login' });
    const headers = p.bearer(otherSession.answer.json<{ access_token: string }>().access_token);
    const answer = await p.verify(
      { challenge_token: started.challenge_token, response: p.authenticator.assert(user.passkey, started.options) },
      headers,
    );
    assertDetail(answer, 401, 'Invalid, used or expired challenge_token; ask for new options');
  });

  it('wrong answers count in the login throttle: the sixth from one address is 429', async () => {
    const user = await p.passkeyUser();
    const remoteAddress = '10.7.7.7';
    for (let i = 0; i < 5; i++) {
      const { answer } = await p.ceremony(user.passkey, { purpose: 'login' }, { lies: { flags: 0 }, remoteAddress });
      assertDetail(answer, 401, REFUSED);
    }
    const { answer } = await p.ceremony(user.passkey, { purpose: 'login' }, { remoteAddress });
    assert.equal(answer.statusCode, 429, answer.body);
  });
});

describe('WebAuthn settings', () => {
  const load = (env: Record<string, string>) => loadConfig({ JWT_SECRET: 'x'.repeat(40), ...env });

  it('default to the RP ID localhost and the origin http://localhost:PORT', () => {
    assert.deepEqual(load({ PORT: '9123' }).auth.webauthn, {
      rpId: 'localhost',
      rpName: 'Trading Platform',
      origins: ['http://localhost:9123'],
    });
    const two = load({ WEBAUTHN_ORIGINS: 'https://example.com/,https://admin.example.com' }).auth.webauthn;
    assert.deepEqual([two.rpId, two.origins], ['example.com', ['https://example.com', 'https://admin.example.com']]);
  });

  it('stop a start whose RP ID is not a suffix of every origin, in one line naming the setting', () => {
    const problemsOf = (env: Record<string, string>) => {
      try {
        load(env);
        return [];
      } catch (error) {
        assert.ok(error instanceof ConfigError);
        return error.problems;
      }
    };
    assert.deepEqual(
      problemsOf({ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://a.example.com,https://example.com' }),
      [],
    );
    assert.deepEqual(problemsOf({ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://app.example.org' }), [
      'WEBAUTHN_RP_ID "example.com" must be the host, or a parent domain, of every WEBAUTHN_ORIGINS origin (not of app.example.org)',
    ]);
    assert.deepEqual(problemsOf({ WEBAUTHN_RP_ID: 'ample.com', WEBAUTHN_ORIGINS: 'https://example.com' }).length, 1);
    assert.match(
      problemsOf({ WEBAUTHN_ORIGINS: 'http://127.0.0.1:8000' })[0]!,
      /^WEBAUTHN_RP_ID must be a domain name/,
    );
    assert.match(problemsOf({ WEBAUTHN_ORIGINS: 'not a url' })[0]!, /^WEBAUTHN_ORIGINS must list origins/);
  });
});
