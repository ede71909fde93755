// Storing a venue API key as a user's credential through POST /api/exchange/credentials: the set-up of
// every test that reaches a venue with a user's key. The tests of that endpoint itself (its validation,
// errors, auth, scopes, step-up) write the request out instead, so they read as its specification.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Credential } from '../../src/modules/exchange/credentials.schemas.ts';

/** A venue account's keys, as the fakes hold them; the passphrase only for the venues that want one. */
export interface VenueKeys {
  apiKey: string;
  secret: string;
  passphrase?: string;
}

/** The request's optional fields; without a credential_name the endpoint names the credential "Default". */
export interface CredentialFields {
  credential_name?: string;
  permissions?: string[];
  ip_whitelist?: string[];
}

/** The body of POST /api/exchange/credentials storing `keys` for `exchange`. */
export function venueCredentialBody(exchange: string, keys: VenueKeys, fields: CredentialFields = {}) {
  return {
    exchange_name: exchange,
    api_key: keys.apiKey,
    api_secret: keys.secret,
    ...(keys.passphrase ? { api_passphrase: keys.passphrase } : {}),
    ...fields,
  };
}

/**
 * Stores `keys` as `owner`'s credential for `exchange`, as a user would, and answers the stored credential.
 * Any answer but 201 fails the test there, with the answer's body.
 */
export async function storeVenueCredential(
  app: Pick<FastifyInstance, 'inject'>,
  owner: { headers: Record<string, string> },
  exchange: string,
  keys: VenueKeys,
  fields: CredentialFields = {},
): Promise<Credential> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/exchange/credentials',
    headers: owner.headers,
    payload: venueCredentialBody(exchange, keys, fields),
  });
  assert.equal(response.statusCode, 201, `storing a ${exchange} credential: ${response.body}`);
  return response.json<Credential>();
}
