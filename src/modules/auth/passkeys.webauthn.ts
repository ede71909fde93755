// The WebAuthn ceremonies, done by @simplewebauthn/server (no CBOR or COSE of ours): options for the
// browser and verification of what it answers, against our RP ID and origins, with user verification
// required (decision 204). Library errors become a reason we audit; they never reach the client.
import { createHash } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { WebauthnSettings } from '../../config/webauthn-settings.ts';
import type { PasskeyRow } from '../users/index.ts';
import type { PasskeyVerifyBody } from './passkeys.schemas.ts';

type Credential = PasskeyVerifyBody['response'];

/** ES256 and RS256: what every platform authenticator and security key offers. */
const ALGORITHMS = [-7, -257];
const CEREMONY_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * The ceremony's challenge, derived from its `challenge_token`: the server stores neither, only the
 * token's hash, and the challenge a page sees does not give the token away.
 */
export function challengeOf(token: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash('sha256').update(`webauthn-challenge\0${token}`).digest());
}

const toBase64Url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** The user handle a passkey holds: the account id's 16 bytes. */
export function userHandleOf(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId.replaceAll('-', ''), 'hex'));
}

const TRANSPORTS: readonly string[] = ['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'];
const asTransports = (transports: readonly string[]): AuthenticatorTransportFuture[] =>
  transports.filter((t): t is AuthenticatorTransportFuture => TRANSPORTS.includes(t));
const attachmentOf = (value: string | undefined) =>
  value === 'platform' || value === 'cross-platform' ? value : undefined;

/** Why a ceremony failed, as audited: `counter` is a cloned authenticator (its counter went backwards). */
export type CeremonyFailure = 'counter' | 'invalid';

// @simplewebauthn/server with its ASN.1 and X.509 stack is loaded by the first ceremony: an idle
// server never needs it (decision 390).
let library: Promise<typeof import('@simplewebauthn/server')> | undefined;
const simplewebauthn = () => (library ??= import('@simplewebauthn/server'));

export function createWebauthn(settings: WebauthnSettings) {
  const expected = { expectedOrigin: [...settings.origins], expectedRPID: settings.rpId };
  return {
    async registrationOptions(token: string, user: { id: string; email: string }, existing: readonly PasskeyRow[]) {
      const { generateRegistrationOptions } = await simplewebauthn();
      return generateRegistrationOptions({
        rpName: settings.rpName,
        rpID: settings.rpId,
        userName: user.email,
        userDisplayName: user.email,
        userID: userHandleOf(user.id),
        challenge: challengeOf(token),
        timeout: CEREMONY_TIMEOUT_MS,
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: asTransports(p.transports) })),
        // A discoverable credential, so the same passkey also signs in without an e-mail.
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
        supportedAlgorithmIDs: ALGORITHMS,
      });
    },

    async authenticationOptions(token: string, allowed: readonly PasskeyRow[]) {
      const { generateAuthenticationOptions } = await simplewebauthn();
      return generateAuthenticationOptions({
        rpID: settings.rpId,
        challenge: challengeOf(token),
        timeout: CEREMONY_TIMEOUT_MS,
        userVerification: 'required',
        allowCredentials: allowed.map((p) => ({ id: p.credentialId, transports: asTransports(p.transports) })),
      });
    },

    /** The credential to store, or why it is refused. */
    async verifyRegistration(token: string, credential: Credential) {
      const { attestationObject, transports, ...rest } = credential.response;
      if (!attestationObject) return { failure: 'the response has no attestationObject' };
      const response: RegistrationResponseJSON = {
        ...credential,
        authenticatorAttachment: attachmentOf(credential.authenticatorAttachment),
        response: { ...rest, attestationObject, transports: transports && asTransports(transports) },
      };
      const { verifyRegistrationResponse } = await simplewebauthn();
      try {
        const verified = await verifyRegistrationResponse({
          response,
          expectedChallenge: toBase64Url(challengeOf(token)),
          ...expected,
          requireUserVerification: true,
          supportedAlgorithmIDs: ALGORITHMS,
        });
        if (!verified.verified) return { failure: 'the attestation did not verify' };
        const info = verified.registrationInfo;
        return {
          credential: {
            credentialId: info.credential.id,
            publicKey: toBase64Url(info.credential.publicKey),
            counter: info.credential.counter,
            transports: info.credential.transports ?? [],
            deviceType: info.credentialDeviceType,
            backedUp: info.credentialBackedUp,
          },
        };
      } catch (error) {
        return { failure: error instanceof Error ? error.message : 'the attestation did not verify' };
      }
    },

    /** The assertion's new counter and backup state, or why it is refused. */
    async verifyAuthentication(
      token: string,
      credential: Credential,
      passkey: PasskeyRow,
    ): Promise<{ counter: number; backedUp: boolean } | { failure: CeremonyFailure; message: string }> {
      const { clientDataJSON, authenticatorData, signature, userHandle } = credential.response;
      if (!authenticatorData || !signature)
        return { failure: 'invalid', message: 'the response has no authenticatorData or signature' };
      const response: AuthenticationResponseJSON = {
        ...credential,
        authenticatorAttachment: attachmentOf(credential.authenticatorAttachment),
        response: { clientDataJSON, authenticatorData, signature, userHandle },
      };
      const { verifyAuthenticationResponse } = await simplewebauthn();
      try {
        const verified = await verifyAuthenticationResponse({
          response,
          expectedChallenge: toBase64Url(challengeOf(token)),
          ...expected,
          credential: {
            id: passkey.credentialId,
            publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
            counter: passkey.counter,
            transports: asTransports(passkey.transports),
          },
          requireUserVerification: true,
        });
        if (!verified.verified) return { failure: 'invalid', message: 'the signature did not verify' };
        const info = verified.authenticationInfo;
        return { counter: info.newCounter, backedUp: info.credentialBackedUp };
      } catch (error) {
        const message = error instanceof Error ? error.message : 'the assertion did not verify';
        // The library's one refusal of a counter that did not move forward (a cloned authenticator).
        return { failure: /counter value/i.test(message) ? 'counter' : 'invalid', message };
      }
    },
  };
}

export type Webauthn = ReturnType<typeof createWebauthn>;
