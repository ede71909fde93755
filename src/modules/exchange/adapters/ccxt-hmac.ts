// ccxt signs its private requests with `hmac(request, secret, hash, digest)`, an instance's own property
// set by its constructor, in pure JavaScript (@noble/hashes): about three times the CPU of node:crypto's
// HMAC, which runs in C++ (decision 610). Each instance gets one that hands the SHA-2 family to
// node:crypto, with the same bytes in and the same text or bytes out; any other hash or digest goes to
// ccxt's own function.
import { createHmac } from 'node:crypto';

/** ccxt's `hmac`: the request and secret as text (UTF-8) or bytes, a @noble/hashes function, an encoding. */
export type CcxtHmac = (request: unknown, secret: unknown, hash: unknown, digest?: string) => unknown;

/** The NIST hash algorithm OIDs' last byte (2.16.840.1.101.3.4.2.x) → node:crypto's name and output size. */
const NIST_HASHES: Readonly<Record<number, { algorithm: string; outputLen: number }>> = {
  1: { algorithm: 'sha256', outputLen: 32 },
  2: { algorithm: 'sha384', outputLen: 48 },
  3: { algorithm: 'sha512', outputLen: 64 },
  4: { algorithm: 'sha224', outputLen: 28 },
};
const NIST_OID_PREFIX = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02];

const algorithms = new WeakMap<object, string | null>();

/**
 * node:crypto's name for a @noble/hashes function, read from the DER OID and output size it carries
 * (whichever copy of @noble/hashes ccxt loaded); null for any hash without one (keccak, md5, sha1).
 */
export function nodeAlgorithmOf(hash: unknown): string | null {
  if (typeof hash !== 'function') return null;
  const known = algorithms.get(hash);
  if (known !== undefined) return known;
  const { oid, outputLen } = hash as { oid?: unknown; outputLen?: unknown };
  let algorithm: string | null = null;
  if (oid instanceof Uint8Array && oid.length === NIST_OID_PREFIX.length + 1) {
    const named = NIST_OID_PREFIX.every((byte, i) => oid[i] === byte) ? NIST_HASHES[oid[oid.length - 1]!] : undefined;
    if (named && named.outputLen === outputLen) algorithm = named.algorithm;
  }
  algorithms.set(hash, algorithm);
  return algorithm;
}

const isInput = (value: unknown): value is string | Uint8Array =>
  typeof value === 'string' || value instanceof Uint8Array;

/** ccxt's `hmac` over node:crypto for the SHA-2 family and a hex, base64 or binary digest; `own` otherwise. */
export function nodeHmac(own: CcxtHmac): CcxtHmac {
  return (request, secret, hash, digest = 'hex') => {
    const algorithm = nodeAlgorithmOf(hash);
    if (algorithm === null || !isInput(request) || !isInput(secret)) return own(request, secret, hash, digest);
    if (digest === 'hex' || digest === 'base64') {
      return createHmac(algorithm, secret).update(request).digest(digest);
    }
    if (digest === 'binary') {
      // ccxt's bytes are a plain Uint8Array, not a Buffer: a view of the digest's memory.
      const bytes = createHmac(algorithm, secret).update(request).digest();
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    }
    return own(request, secret, hash, digest);
  };
}
