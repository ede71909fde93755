// A software WebAuthn authenticator for the API tests: ES256 keys from node:crypto, `none`
// attestation, authenticator data with its flags and signature counter, and the few CBOR maps an
// attestation object and a COSE key need (a test-only encoder: the server decodes with
// @simplewebauthn/server). It answers what a browser's `credential.toJSON()` would, and can be told
// to lie (another origin or RP ID, no user verification, a counter going backwards) as a phishing
// page or a cloned authenticator would.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor> | { [key: string]: Cbor };

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
  const out = Buffer.alloc(5);
  out[0] = (major << 5) | 26;
  out.writeUInt32BE(length, 1);
  return out;
}

/** CBOR (RFC 8949) of integers, text, bytes, arrays and maps: what WebAuthn's structures use. */
export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, text.length), text]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** Authenticator data flags (WebAuthn §6.1). */
export const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;

/** What a ceremony's answer may be made to lie about. */
export interface Lies {
  origin?: string;
  rpId?: string;
  /** Flags instead of UP|UV (and AT on registration). */
  flags?: number;
  /** The signature counter to report instead of the next one. */
  counter?: number;
  type?: string;
}

export interface SoftwarePasskey {
  credentialId: Buffer;
  privateKey: KeyObject;
  userHandle: string;
  /** The counter the next assertion reports (then it goes up by one). */
  counter: number;
}

export interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string };
}

export interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

function clientData(type: string, challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

export function createSoftwareAuthenticator(defaults: { origin: string; rpId: string }) {
  return {
    /** Makes a passkey for the creation options; answers it and the registration response JSON. */
    create(options: CreationOptions, lies: Lies = {}) {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const jwk = publicKey.export({ format: 'jwk' });
      const coseKey = new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]);
      const credentialId = randomBytes(32);
      const counter = lies.counter ?? 0;
      const counterBytes = Buffer.alloc(4);
      counterBytes.writeUInt32BE(counter);
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(credentialId.length);
      const authData = Buffer.concat([
        sha256(lies.rpId ?? options.rp.id ?? defaults.rpId),
        Buffer.from([lies.flags ?? FLAGS.UP | FLAGS.UV | FLAGS.AT]),
        counterBytes,
        Buffer.alloc(16),
        idLength,
        credentialId,
        cbor(coseKey),
      ]);
      const attestationObject = cbor({ fmt: 'none', attStmt: {}, authData });
      const passkey: SoftwarePasskey = { credentialId, privateKey, userHandle: options.user.id, counter: counter + 1 };
      const response = {
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        type: 'public-key',
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64url(
            clientData(lies.type ?? 'webauthn.create', options.challenge, lies.origin ?? defaults.origin),
          ),
          attestationObject: b64url(attestationObject),
          transports: ['internal'],
        },
      };
      return { passkey, response };
    },

    /** Signs the request options' challenge with the passkey, as `navigator.credentials.get` answers. */
    assert(passkey: SoftwarePasskey, options: RequestOptions, lies: Lies = {}) {
      const counter = lies.counter ?? passkey.counter;
      if (lies.counter === undefined) passkey.counter += 1;
      const counterBytes = Buffer.alloc(4);
      counterBytes.writeUInt32BE(counter);
      const authData = Buffer.concat([
        sha256(lies.rpId ?? options.rpId ?? defaults.rpId),
        Buffer.from([lies.flags ?? FLAGS.UP | FLAGS.UV]),
        counterBytes,
      ]);
      const data = clientData(lies.type ?? 'webauthn.get', options.challenge, lies.origin ?? defaults.origin);
      const signature = sign('sha256', Buffer.concat([authData, sha256(data)]), passkey.privateKey);
      return {
        id: b64url(passkey.credentialId),
        rawId: b64url(passkey.credentialId),
        type: 'public-key',
        authenticatorAttachment: 'platform',
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64url(data),
          authenticatorData: b64url(authData),
          signature: b64url(signature),
          userHandle: passkey.userHandle,
        },
      };
    },
  };
}
