// Set-up shared by the tests that run orders against a real server process (killed between send and
// commit): JSON calls to whichever server runs now, and a user signed in with a fresh second factor, as
// live orders need.
import assert from 'node:assert/strict';
import { decodeBase32, referenceTotp } from '../../helpers/totp-reference.ts';
import { venueCredentialBody, type VenueKeys } from '../../helpers/venue-credentials.ts';

export type Call = (
  method: string,
  path: string,
  body?: unknown,
  token?: string,
) => Promise<{ status: number; json: Record<string, unknown> }>;

/** Calls the server at `url()`, asked on every call: a restarted server answers at a new address. */
export function callsTo(url: () => string): Call {
  return async (method, path, body, token) => {
    const response = await fetch(`${url()}${path}`, {
      method,
      headers: {
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
}

/** Registers `email`, turns two-factor on and signs in again with a recovery code: that session's token. */
export async function twoFactorToken(call: Call, email: string): Promise<string> {
  const password = 'Pw-0123456789abcdef';
  assert.equal((await call('POST', '/api/auth/register', { email, password })).status, 201);
  const first = (await call('POST', '/api/auth/login', { email, password })).json.access_token as string;
  const setup = await call('POST', '/api/auth/2fa/setup', { password }, first);
  const secret = setup.json.secret as string;
  const code = referenceTotp(Buffer.from(decodeBase32(secret)), Math.floor(Date.now() / 30_000) * 30, 6);
  const enabled = await call('POST', '/api/auth/2fa/enable', { code }, first);
  assert.equal(enabled.status, 200, JSON.stringify(enabled.json));
  const [recovery] = enabled.json.recovery_codes as string[];
  const challenge = await call('POST', '/api/auth/login', { email, password });
  const verified = await call('POST', '/api/auth/2fa/verify', {
    mfa_token: challenge.json.mfa_token,
    recovery_code: recovery,
  });
  assert.equal(verified.status, 200, JSON.stringify(verified.json));
  return verified.json.access_token as string;
}

/** Stores `keys` as the token's user's credential for `exchange`; any answer but 201 fails the test there. */
export async function storeVenueCredentialThrough(
  call: Call,
  token: string,
  exchange: string,
  keys: VenueKeys,
): Promise<void> {
  const created = await call('POST', '/api/exchange/credentials', venueCredentialBody(exchange, keys), token);
  assert.equal(created.status, 201, `storing a ${exchange} credential: ${JSON.stringify(created.json)}`);
}
