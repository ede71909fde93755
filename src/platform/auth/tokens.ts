// Access tokens: JWT HS256 signed with JWT_SECRET, claims sub, role, sid. Only HS256 is accepted here,
// so `alg: none` and algorithm-confusion tokens fail verification.
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { Clock } from '../clock.ts';

export interface AccessClaims {
  sub: string;
  role: string;
  sid: string;
  /** When the session's user authenticated last (seconds since the epoch): the password, or a later second factor. */
  auth_time?: number;
  /** How (RFC 8176): `pwd`, and `mfa` with `otp` or `rc` (a recovery code) once a second factor was presented. */
  amr?: string[];
}

export interface TokenService {
  issueAccess(claims: AccessClaims): Promise<{ token: string; expiresIn: number }>;
  /** The claims, or null for any invalid, expired or malformed token. */
  verifyAccess(token: string): Promise<AccessClaims | null>;
}

const ISSUER = 'trading-platform';
const AUDIENCE = 'trading-platform-api';

/**
 * Tokens already verified, by their text, until they expire: a client sends one token with every
 * request for its lifetime, and checking the HMAC through WebCrypto cost more than the rest of an
 * authenticated read (decision 016). Keyed by the whole token, so only the same bytes hit.
 */
const VERIFIED_TOKENS = 10_000;

export function createTokenService(secret: string, ttlSeconds: number, clock: Clock): TokenService {
  const raw = new TextEncoder().encode(secret);
  // Imported once: given bytes, jose imports a key for every verification.
  let hmacKey: Promise<CryptoKey> | undefined;
  const key = () =>
    (hmacKey ??= crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']));
  const verified = new Map<string, { claims: AccessClaims; expiresAtMs: number }>();
  return {
    async issueAccess(claims) {
      const now = Math.floor(clock.now().getTime() / 1000);
      const extra = {
        ...(claims.auth_time !== undefined ? { auth_time: claims.auth_time } : {}),
        ...(claims.amr ? { amr: claims.amr } : {}),
      };
      const token = await new SignJWT({ role: claims.role, sid: claims.sid, ...extra })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(claims.sub)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(now + ttlSeconds)
        .setJti(randomBytes(8).toString('hex'))
        .sign(await key());
      return { token, expiresIn: ttlSeconds };
    },
    async verifyAccess(token) {
      const known = verified.get(token);
      if (known) {
        if (known.expiresAtMs > clock.now().getTime()) return known.claims;
        verified.delete(token);
      }
      try {
        const { payload } = await jwtVerify(token, await key(), {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: clock.now(),
        });
        if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.role !== 'string') {
          return null;
        }
        const claims: AccessClaims = { sub: payload.sub, sid: payload.sid, role: payload.role };
        if (typeof payload.auth_time === 'number') claims.auth_time = payload.auth_time;
        if (Array.isArray(payload.amr) && payload.amr.every((m) => typeof m === 'string'))
          claims.amr = payload.amr as string[];
        if (typeof payload.exp === 'number') {
          if (verified.size >= VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
          verified.set(token, { claims, expiresAtMs: payload.exp * 1000 });
        }
        return claims;
      } catch (error) {
        if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
        throw error;
      }
    },
  };
}

/** Opaque refresh tokens: random, and stored only as their SHA-256. */
export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
