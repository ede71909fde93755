// Access tokens: JWT HS256 signed with JWT_SECRET, claims sub, role, sid. Only HS256 is accepted here,
// so `alg: none` and algorithm-confusion tokens fail verification.
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { Clock } from '../clock.ts';

export interface AccessClaims {
  sub: string;
  role: string;
  sid: string;
}

export interface TokenService {
  issueAccess(claims: AccessClaims): Promise<{ token: string; expiresIn: number }>;
  /** The claims, or null for any invalid, expired or malformed token. */
  verifyAccess(token: string): Promise<AccessClaims | null>;
}

const ISSUER = 'trading-platform';
const AUDIENCE = 'trading-platform-api';

export function createTokenService(secret: string, ttlSeconds: number, clock: Clock): TokenService {
  const key = new TextEncoder().encode(secret);
  return {
    async issueAccess(claims) {
      const now = Math.floor(clock.now().getTime() / 1000);
      const token = await new SignJWT({ role: claims.role, sid: claims.sid })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(claims.sub)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(now + ttlSeconds)
        .setJti(randomBytes(8).toString('hex'))
        .sign(key);
      return { token, expiresIn: ttlSeconds };
    },
    async verifyAccess(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: clock.now(),
        });
        if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.role !== 'string') {
          return null;
        }
        return { sub: payload.sub, sid: payload.sid, role: payload.role };
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
