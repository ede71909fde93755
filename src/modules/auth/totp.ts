// The second factor's arithmetic (decision 140): RFC 6238 TOTP through `otpauth` (SHA-1, 6 digits,
// 30 s), the enrollment QR code through `uqr`, and recovery codes. Pure but for randomness.
import { createHash, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { renderSVG } from 'uqr';

const TOTP_PERIOD_SECONDS = 30;
const TOTP_DIGITS = 6;
/** Codes of one step either side of now are accepted (clock drift, a code typed as it turned). */
const TOTP_WINDOW = 1;
const RECOVERY_CODE_COUNT = 10;
const ISSUER = 'Trading Platform';

const totpOf = (secretBase32: string, label = 'account') =>
  new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secretBase32),
  });

/** A new 160-bit secret (RFC 4226's recommended length), base32 without padding. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** What an authenticator app scans: `otpauth://totp/<issuer>:<email>?secret=…&issuer=…`. */
export function otpauthUrl(secretBase32: string, email: string): string {
  return totpOf(secretBase32, email).toString();
}

export function qrSvg(text: string): string {
  return renderSVG(text, { border: 2 });
}

/** The code of a time step; for tests and the CLI's diagnostics. */
export function totpCode(secretBase32: string, at: Date): string {
  return totpOf(secretBase32).generate({ timestamp: at.getTime() });
}

/**
 * The time step the code belongs to, when it is a right code within one step of `at`; undefined
 * otherwise. The caller must still spend the step (never accept it twice).
 */
export function matchingStep(secretBase32: string, code: string, at: Date): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totpOf(secretBase32).validate({ token, timestamp: at.getTime(), window: TOTP_WINDOW });
  if (delta === null) return undefined;
  return Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS) + delta;
}

/** 32 characters (no i, l, o, 1): each random byte's low five bits pick one without bias. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz023456789';

/**
 * Ten codes like `k7mq2-x9r4t`: 10 characters of a 32-letter alphabet (50 bits each), so a
 * plain SHA-256 stores them safely: they cannot be guessed offline from the hash.
 */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b & 31]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** As typed: case, spaces and hyphens do not matter. */
function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}

/** SHA-256 of the normalized code, bound to its user so equal codes of two users hash apart. */
export function hashRecoveryCode(userId: string, code: string): string {
  return createHash('sha256')
    .update(`${userId}:${normalizeRecoveryCode(code)}`)
    .digest('hex');
}
