// Tokens of an external identity provider (JWT_JWKS_URL and its issuer and audience; DESIGN §4).
import type { EnvReader } from './env-reader.ts';

export interface ExternalTokenSettings {
  readonly jwksUrl: string;
  /** The `iss` every accepted token must carry. */
  readonly issuer: string;
  /** The `aud` every accepted token must carry, when set. */
  readonly audience: string | undefined;
}

/**
 * An external identity provider's tokens are accepted only with a known issuer, else any token
 * signed by a shared provider (every tenant of it) would do. Supabase-style JWKS URLs
 * (`<issuer>/.well-known/jwks.json`) give the issuer; other providers must name it.
 */
export function readExternalTokens(env: EnvReader): ExternalTokenSettings | undefined {
  const jwksUrl = env.url('JWT_JWKS_URL');
  const audience = env.string('JWT_JWKS_AUDIENCE');
  let issuer = env.string('JWT_JWKS_ISSUER');
  if (!jwksUrl) {
    if (issuer || audience) env.problems.push('JWT_JWKS_ISSUER and JWT_JWKS_AUDIENCE need JWT_JWKS_URL');
    return undefined;
  }
  const suffix = '/.well-known/jwks.json';
  if (!issuer && jwksUrl.endsWith(suffix)) issuer = jwksUrl.slice(0, -suffix.length);
  if (!issuer) {
    env.problems.push('JWT_JWKS_ISSUER must be set with JWT_JWKS_URL (the issuer could not be derived from the URL)');
    return undefined;
  }
  return { jwksUrl, issuer, audience };
}
