import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bodyDigest,
  parseStripeHeader,
  safeEqual,
  secretEquals,
  standardWebhookKey,
  standardWebhookSignature,
  verifyBearer,
  verifyHexHmac,
  verifyHubSignature,
  verifyStandardWebhook,
  verifyStripeSignature,
  verifyTimestampMs,
  type Verdict,
} from '../../../src/modules/webhooks/signatures.ts';

const bytes = (text: string) => Buffer.from(text, 'utf8');
/** The reason of a refusal, or `ok`. */
const reasonOf = (verdict: Verdict) => (verdict.ok ? 'ok' : verdict.reason);
const at = (unixSeconds: number) => new Date(unixSeconds * 1000);

describe('published and reference test vectors', () => {
  it("accepts GitHub's documented example (X-Hub-Signature-256)", () => {
    const verdict = verifyHubSignature(
      bytes('Hello, World!'),
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
      "It's a Secret to Everybody",
    );
    assert.deepEqual(verdict, { ok: true });
  });

  it('computes the Standard Webhooks / Svix published signature and accepts it at its timestamp', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = bytes('{"test": 2432232314}');
    const expected = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
    assert.equal(standardWebhookSignature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', '1614265330', body), expected);
    const headers = { id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: '1614265330', signature: expected };
    assert.deepEqual(verifyStandardWebhook(body, headers, secret, at(1614265330)), { ok: true });
  });

  it('accepts the Stripe reference vector (key used as-is, content "t.body")', () => {
    const verdict = verifyStripeSignature(
      bytes('{"id":"evt_test","type":"invoice.paid"}'),
      't=1700000000,v1=41224a79662e7e90472e69439a0af83a9bab35d6e41e1b411c5cdc8f727a0c32',
      'whsec_test',
      at(1700000000),
    );
    assert.deepEqual(verdict, { ok: true });
  });

  it('accepts the Vercel reference vector (hex HMAC-SHA1)', () => {
    const verdict = verifyHexHmac(
      bytes('{"type":"deployment.created"}'),
      '0ec23193e6b18b121d6416ce8d2442004ee286c7',
      'vsecret',
      'sha1',
    );
    assert.deepEqual(verdict, { ok: true });
  });
});

describe('GitHub signatures', () => {
  const body = bytes('Hello, World!');
  const good = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

  it('refuses a missing header, another scheme, a changed body and a truncated signature', () => {
    assert.equal(verifyHubSignature(body, undefined, 'x').ok, false);
    assert.deepEqual(verifyHubSignature(body, undefined, 'x'), {
      ok: false,
      reason: 'missing',
      message: 'Missing webhook signature',
    });
    assert.equal(verifyHubSignature(body, good.replace('sha256', 'sha1'), "It's a Secret to Everybody").ok, false);
    assert.equal(verifyHubSignature(bytes('Hello, World?'), good, "It's a Secret to Everybody").ok, false);
    assert.equal(verifyHubSignature(body, good.slice(0, -2), "It's a Secret to Everybody").ok, false);
    assert.equal(verifyHubSignature(body, `${good}zz`, "It's a Secret to Everybody").ok, false);
    assert.equal(verifyHubSignature(body, good, 'another secret').ok, false);
  });

  it('accepts upper-case hex (same digest)', () => {
    const upper = `sha256=${good.slice(7).toUpperCase()}`;
    assert.equal(verifyHubSignature(body, upper, "It's a Secret to Everybody").ok, true);
  });
});

describe('Stripe signatures', () => {
  const body = bytes('{"id":"evt_test","type":"invoice.paid"}');
  const v1 = '41224a79662e7e90472e69439a0af83a9bab35d6e41e1b411c5cdc8f727a0c32';

  it('accepts any matching v1 among several and ignores v0', () => {
    const header = `t=1700000000,v1=${'0'.repeat(64)},v1=${v1},v0=${'f'.repeat(64)}`;
    assert.equal(verifyStripeSignature(body, header, 'whsec_test', at(1700000000)).ok, true);
  });

  it('allows 300 seconds either way and refuses 301 as stale', () => {
    const header = `t=1700000000,v1=${v1}`;
    assert.equal(verifyStripeSignature(body, header, 'whsec_test', at(1700000300)).ok, true);
    assert.equal(verifyStripeSignature(body, header, 'whsec_test', at(1699999700)).ok, true);
    assert.deepEqual(verifyStripeSignature(body, header, 'whsec_test', at(1700000301)), {
      ok: false,
      reason: 'stale',
      message: 'Webhook timestamp is outside the tolerance window',
    });
  });

  it('refuses a header without timestamp or without v1, and a signature over another timestamp', () => {
    assert.equal(verifyStripeSignature(body, `v1=${v1}`, 'whsec_test', at(1700000000)).ok, false);
    assert.equal(verifyStripeSignature(body, 't=1700000000', 'whsec_test', at(1700000000)).ok, false);
    assert.equal(verifyStripeSignature(body, `t=1700000001,v1=${v1}`, 'whsec_test', at(1700000000)).ok, false);
    assert.equal(verifyStripeSignature(body, undefined, 'whsec_test', at(1700000000)).ok, false);
  });

  it('parses the header loosely as stripe-node does', () => {
    assert.deepEqual(parseStripeHeader('t=12, v1=ab ,v0=cd,v1=ef,junk'), { timestamp: 12, v1: ['ab', 'ef'] });
  });
});

describe('Standard Webhooks signatures', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const body = bytes('{"test": 2432232314}');
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const signature = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

  it('reads the secret in the whsec_ and the v1,whsec_ forms alike', () => {
    // The base64 after whsec_, decoded: 24 bytes.
    const key = '31f290f6bf06298aab4f08d43c3f082cf648a362da2da4b0';
    assert.equal(standardWebhookKey(secret).toString('hex'), key);
    assert.equal(standardWebhookKey(`v1,${secret}`).toString('hex'), key);
    assert.equal(
      verifyStandardWebhook(body, { id, timestamp: '1614265330', signature }, `v1,${secret}`, at(1614265330)).ok,
      true,
    );
  });

  it('finds the v1 signature in a space-separated list', () => {
    const list = `v1a,ignored v1,${'A'.repeat(44)} ${signature}`;
    assert.equal(
      verifyStandardWebhook(body, { id, timestamp: '1614265330', signature: list }, secret, at(1614265330)).ok,
      true,
    );
  });

  it('refuses missing headers, another id, a changed body and a stale timestamp', () => {
    assert.equal(
      reasonOf(
        verifyStandardWebhook(body, { id, timestamp: '1614265330', signature: undefined }, secret, at(1614265330)),
      ),
      'missing',
    );
    assert.equal(
      reasonOf(
        verifyStandardWebhook(body, { id: 'msg_other', timestamp: '1614265330', signature }, secret, at(1614265330)),
      ),
      'invalid',
    );
    assert.equal(
      reasonOf(
        verifyStandardWebhook(bytes('{"test": 1}'), { id, timestamp: '1614265330', signature }, secret, at(1614265330)),
      ),
      'invalid',
    );
    assert.equal(
      reasonOf(verifyStandardWebhook(body, { id, timestamp: '1614265330', signature }, secret, at(1614265330 + 301))),
      'stale',
    );
    assert.equal(
      reasonOf(verifyStandardWebhook(body, { id, timestamp: '1614265330', signature }, secret, at(1614265330 - 301))),
      'stale',
    );
  });
});

describe('other schemes', () => {
  it('checks a bearer secret, whatever the scheme case, and refuses others', () => {
    assert.equal(verifyBearer('Bearer s3cret', 's3cret').ok, true);
    assert.equal(verifyBearer('bearer s3cret', 's3cret').ok, true);
    assert.equal(reasonOf(verifyBearer('Bearer s3cret2', 's3cret')), 'invalid');
    assert.equal(reasonOf(verifyBearer('Basic czNjcmV0', 's3cret')), 'missing');
    assert.equal(reasonOf(verifyBearer(undefined, 's3cret')), 'missing');
  });

  it('checks a millisecond timestamp within 60 seconds', () => {
    const now = new Date('2025-06-01T12:00:00.000Z');
    assert.equal(verifyTimestampMs(now.getTime() - 60_000, now).ok, true);
    assert.equal(reasonOf(verifyTimestampMs(now.getTime() - 60_001, now)), 'stale');
    assert.equal(reasonOf(verifyTimestampMs(now.getTime() + 60_001, now)), 'stale');
    assert.equal(reasonOf(verifyTimestampMs(undefined, now)), 'invalid');
    assert.equal(reasonOf(verifyTimestampMs(String(now.getTime()), now)), 'invalid');
  });

  it('compares in constant time only buffers of equal length', () => {
    assert.equal(safeEqual('abc', 'abc'), true);
    assert.equal(safeEqual('abc', 'abcd'), false);
    assert.equal(secretEquals('same', 'same'), true);
    assert.equal(secretEquals('same', 'same-but-longer'), false);
  });

  it('identifies a body by its SHA-256', () => {
    assert.equal(bodyDigest(bytes('')), 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});
