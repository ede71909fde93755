// Access tokens of an external identity provider (e.g. Supabase Auth): RS256 or ES256, verified with
// the provider's published keys (JWKS, fetched lazily, cached, refetched when an unknown `kid`
// appears), its issuer, and its audience when one is configured. A provider's user is linked to one
// of our accounts by a verified e-mail address once, and by its subject thereafter (decision 009);
// the account, its status and its role are ours.
import { createRemoteJWKSet, customFetch, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import type { ExternalTokenSettings } from '../../config/config.ts';
import type { Clock } from '../clock.ts';

export const EXTERNAL_ALGORITHMS = ['RS256', 'ES256'] as const;

export interface ExternalIdentity {
  /** The provider, by its `iss`: a subject is unique only within it. */
  issuer: string;
  subject: string;
  email: string;
  /**
   * Whether the provider says it verified the address: the top-level `email_verified` claim
   * (OpenID Connect's), which only the provider (or the operator's hook at it) writes. Never
   * `user_metadata.email_verified`: Supabase lets the user write their own metadata (decision 900).
   * An unverified address links to no account.
   */
  emailVerified: boolean;
}

export interface ExternalTokenVerifier {
  /** The identity, or null for any invalid, expired, foreign or e-mail-less token. */
  verify(token: string): Promise<ExternalIdentity | null>;
}

/** The token's `alg` header, or undefined when the token is not a JWS at all. */
export function tokenAlgorithm(token: string): string | undefined {
  try {
    return decodeProtectedHeader(token).alg;
  } catch {
    return undefined;
  }
}

export function createExternalTokenVerifier(
  settings: ExternalTokenSettings,
  deps: { clock: Clock; fetch: typeof fetch; timeoutMs?: number },
): ExternalTokenVerifier {
  const keys = createRemoteJWKSet(new URL(settings.jwksUrl), {
    timeoutDuration: deps.timeoutMs ?? 5_000,
    // At most one refetch per 30 s however many tokens with unknown key ids arrive.
    cooldownDuration: 30_000,
    cacheMaxAge: 10 * 60_000,
    [customFetch]: (url, options) => deps.fetch(url, options as RequestInit),
  });
  return {
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, keys, {
          algorithms: [...EXTERNAL_ALGORITHMS],
          issuer: settings.issuer,
          audience: settings.audience,
          currentDate: deps.clock.now(),
          requiredClaims: ['exp', 'sub'],
        });
        if (payload.is_anonymous === true) return null;
        if (typeof payload.sub !== 'string' || typeof payload.email !== 'string' || !payload.email.includes('@'))
          return null;
        return {
          issuer: settings.issuer,
          subject: payload.sub,
          email: payload.email.trim().toLowerCase(),
          emailVerified: payload.email_verified === true,
        };
      } catch (error) {
        // An unreachable JWKS is a JOSEError too (JWKSTimeout, or the fetch's failure wrapped):
        // the token cannot be trusted, so the answer is 401, never a 500.
        if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
        throw error;
      }
    },
  };
}
