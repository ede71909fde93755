// Signature schemes of the inbound webhooks, as pure functions over the raw body bytes. Each scheme
// is first read from the headers alone (a refusal, or the MAC the body must match), so the body can
// be checked as it arrives and is parsed only once it has matched (decision 060). Every comparison
// is constant-time on equal-length buffers; the time passed in comes from the Clock.
import { createHash, createHmac, timingSafeEqual, type Hmac } from 'node:crypto';

export type Verdict = { ok: true } | { ok: false; reason: 'missing' | 'invalid' | 'stale'; message: string };

export type Refused = Extract<Verdict, { ok: false }>;

export const OK: Verdict = { ok: true };
const missing = (message = 'Missing webhook signature'): Verdict => ({ ok: false, reason: 'missing', message });
const invalid = (message = 'Invalid webhook signature'): Verdict => ({ ok: false, reason: 'invalid', message });
const stale = (message = 'Webhook timestamp is outside the tolerance window'): Verdict => ({
  ok: false,
  reason: 'stale',
  message,
});

/** Stripe's stripe-node DEFAULT_TOLERANCE and the Standard Webhooks / Svix window, in seconds. */
const STRIPE_TOLERANCE_SECONDS = 300;
const STANDARD_WEBHOOKS_TOLERANCE_SECONDS = 300;
/** Linear's SDK rejects a webhookTimestamp more than a minute away. */
const LINEAR_TOLERANCE_MS = 60_000;

const HEX = /^[0-9a-f]+$/i;

/** Constant-time equality of two strings of the same length; different lengths are simply unequal. */
export function safeEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/** Equality of a presented secret with the configured one, leaking neither content nor length. */
export function secretEquals(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

function hmac(algorithm: 'sha1' | 'sha256', key: string | Buffer, ...parts: (string | Buffer)[]): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** Hex signatures are compared case-insensitively (the digest is the same either way). */
function hexMatches(given: string, expected: Buffer): boolean {
  const candidate = given.trim();
  if (!HEX.test(candidate)) return false;
  return safeEqual(candidate.toLowerCase(), expected.toString('hex'));
}

/**
 * A signature over the body, as the headers describe it: the MAC to compute over `prefix` and then
 * the body bytes as they arrive, and how to judge the result. The body is never parsed to check it.
 */
export interface BodySignature {
  algorithm: 'sha1' | 'sha256';
  key: string | Buffer;
  /** What the sender signed before the body: Stripe's `t.`, Standard Webhooks' `id.timestamp.`. */
  prefix: string;
  judge(mac: Buffer, now: Date): Verdict;
}

/** What the headers decide before any byte of the body is read: a verdict, or the signature the body must carry. */
export type SignatureCheck = Verdict | BodySignature;

export function isVerdict(check: SignatureCheck): check is Verdict {
  return 'ok' in check;
}

/** The MAC of a body signature, fed its prefix; the body's chunks are added as they arrive. */
export function startMac(signature: BodySignature): Hmac {
  return createHmac(signature.algorithm, signature.key).update(signature.prefix);
}

/** The verdict on a whole body at once (tests, and bodies that were never streamed). */
function judgeBody(check: SignatureCheck, rawBody: Buffer, now: Date): Verdict {
  if (isVerdict(check)) return check;
  return check.judge(startMac(check).update(rawBody).digest(), now);
}

/** What the judge of a scheme that signs no time is given for `now`. */
const UNTIMED = new Date(0);

/** A plain hex HMAC of the body (Linear, Sentry, Vercel with SHA-1, the mailer's own header). */
export function hexHmacCheck(
  signature: string | undefined,
  secret: string,
  algorithm: 'sha1' | 'sha256' = 'sha256',
): SignatureCheck {
  if (!signature) return missing();
  return { algorithm, key: secret, prefix: '', judge: (mac) => (hexMatches(signature, mac) ? OK : invalid()) };
}

export function verifyHexHmac(
  rawBody: Buffer,
  signature: string | undefined,
  secret: string,
  algorithm: 'sha1' | 'sha256' = 'sha256',
): Verdict {
  return judgeBody(hexHmacCheck(signature, secret, algorithm), rawBody, UNTIMED);
}

/** GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>`. */
export function hubSignatureCheck(header: string | undefined, secret: string): SignatureCheck {
  if (!header) return missing();
  const [scheme, signature] = header.trim().split('=', 2);
  if (scheme !== 'sha256' || !signature) return invalid();
  return hexHmacCheck(signature, secret);
}

export function verifyHubSignature(rawBody: Buffer, header: string | undefined, secret: string): Verdict {
  return judgeBody(hubSignatureCheck(header, secret), rawBody, UNTIMED);
}

interface StripeSignatureHeader {
  timestamp: number | undefined;
  v1: string[];
}

export function parseStripeHeader(header: string): StripeSignatureHeader {
  let timestamp: number | undefined;
  const v1: string[] = [];
  for (const item of header.split(',')) {
    const at = item.indexOf('=');
    if (at < 0) continue;
    const key = item.slice(0, at).trim();
    const value = item.slice(at + 1).trim();
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && value) v1.push(value);
  }
  return { timestamp, v1 };
}

/**
 * Stripe: `t=<unix>,v1=<hex>[,v1=...]`, HMAC-SHA256 keyed with the `whsec_...` string as-is over
 * `${t}.${body}`; any v1 may match (several during a secret roll); t within the tolerance of now.
 */
export function stripeSignatureCheck(
  header: string | undefined,
  secret: string,
  toleranceSeconds = STRIPE_TOLERANCE_SECONDS,
): SignatureCheck {
  if (!header) return missing();
  const { timestamp, v1 } = parseStripeHeader(header);
  if (timestamp === undefined || v1.length === 0) return invalid('Malformed webhook signature header');
  return {
    algorithm: 'sha256',
    key: secret,
    prefix: `${timestamp}.`,
    judge(mac, now) {
      // Every candidate is compared, so the time taken does not reveal which one matched.
      let matched = false;
      for (const candidate of v1) matched = hexMatches(candidate, mac) || matched;
      if (!matched) return invalid();
      return Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds ? stale() : OK;
    },
  };
}

export function verifyStripeSignature(
  rawBody: Buffer,
  header: string | undefined,
  secret: string,
  now: Date,
  toleranceSeconds = STRIPE_TOLERANCE_SECONDS,
): Verdict {
  return judgeBody(stripeSignatureCheck(header, secret, toleranceSeconds), rawBody, now);
}

/**
 * The key of a Standard Webhooks / Svix secret: `whsec_<base64>` (Svix, Resend) or
 * `v1,whsec_<base64>` (as Supabase's dashboard shows it) is base64-decoded; any other string is
 * used as its UTF-8 bytes.
 */
export function standardWebhookKey(secret: string): Buffer {
  let value = secret.trim();
  if (value.startsWith('v1,')) value = value.slice(3);
  if (value.startsWith('whsec_')) return Buffer.from(value.slice('whsec_'.length), 'base64');
  return Buffer.from(value, 'utf8');
}

/** The `v1,<base64>` signature a Standard Webhooks sender puts in its header for this message. */
export function standardWebhookSignature(secret: string, id: string, timestamp: string, rawBody: Buffer): string {
  return `v1,${hmac('sha256', standardWebhookKey(secret), `${id}.${timestamp}.`, rawBody).toString('base64')}`;
}

interface StandardWebhookHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

/**
 * Standard Webhooks (Svix, Resend, Supabase auth hooks): HMAC-SHA256 over `${id}.${timestamp}.${body}`
 * with the base64-decoded secret, base64 in a space-separated list of `v1,<sig>`; timestamp (unix s)
 * within the tolerance of now.
 */
export function standardWebhookCheck(
  headers: StandardWebhookHeaders,
  secret: string,
  toleranceSeconds = STANDARD_WEBHOOKS_TOLERANCE_SECONDS,
): SignatureCheck {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature) return missing();
  if (!/^\d+$/.test(timestamp)) return invalid('Malformed webhook timestamp');
  return {
    algorithm: 'sha256',
    key: standardWebhookKey(secret),
    prefix: `${id}.${timestamp}.`,
    judge(mac, now) {
      const expected = mac.toString('base64');
      let matched = false;
      for (const item of signature.trim().split(/\s+/)) {
        const [version, value] = item.split(',', 2);
        if (version === 'v1' && value) matched = safeEqual(value, expected) || matched;
      }
      if (!matched) return invalid();
      return Math.abs(now.getTime() / 1000 - Number(timestamp)) > toleranceSeconds ? stale() : OK;
    },
  };
}

export function verifyStandardWebhook(
  rawBody: Buffer,
  headers: StandardWebhookHeaders,
  secret: string,
  now: Date,
  toleranceSeconds = STANDARD_WEBHOOKS_TOLERANCE_SECONDS,
): Verdict {
  return judgeBody(standardWebhookCheck(headers, secret, toleranceSeconds), rawBody, now);
}

/** `Authorization: Bearer <secret>` (Supabase database webhooks, the auth hook's bearer form). */
export function verifyBearer(authorization: string | undefined, secret: string): Verdict {
  if (!authorization) return missing('Missing bearer token');
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  if (!match) return missing('Missing bearer token');
  return secretEquals(match[1]!.trim(), secret) ? OK : invalid('Invalid bearer token');
}

/** Linear puts the send time (ms) in the signed body; a replay of an old body is refused. */
export function verifyTimestampMs(timestampMs: unknown, now: Date, toleranceMs = LINEAR_TOLERANCE_MS): Verdict {
  if (typeof timestampMs !== 'number' || !Number.isFinite(timestampMs)) {
    return invalid('Missing webhookTimestamp in the body');
  }
  return Math.abs(now.getTime() - timestampMs) > toleranceMs ? stale() : OK;
}

/** The delivery id of a sender that provides none: the same body is the same delivery. */
export function bodyDigest(rawBody: Buffer): string {
  return `sha256:${createHash('sha256').update(rawBody).digest('hex')}`;
}
