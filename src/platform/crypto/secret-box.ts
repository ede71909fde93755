// AES-256-GCM with a key id in every ciphertext, so that values sealed under a retired key stay
// readable (ENCRYPTION_KEYS_OLD) until the rotation job re-seals them under the current one. Each
// value is bound to where it is stored (table, column and row, as additional authenticated data): a
// ciphertext copied into another row or column, by SQL or a restore, does not open there.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** Where a sealed value lives; the ciphertext opens only there. */
export interface SealedAt {
  table: string;
  column: string;
  /** The row's id. */
  row: string;
}

export interface SecretBox {
  seal(plaintext: string, at: SealedAt): string;
  open(sealed: string, at: SealedAt): string;
  /** True when the value should be sealed again: under another key than the current one, or unbound. */
  isStale(sealed: string): boolean;
  /** Re-seals under the current key, bound to `at`; returns the input unchanged when it needs nothing. */
  reseal(sealed: string, at: SealedAt): string;
  readonly currentKeyId: string;
  /**
   * A 32-byte key for one purpose (e.g. signing a cookie), derived from the current key by HKDF: never
   * the key itself, and another for each purpose. Rotating ENCRYPTION_KEY changes it.
   */
  deriveKey(purpose: string): Buffer;
}

/** `v2`: bound to its place. `v1` values (no binding) stay readable and are stale until re-sealed. */
const VERSION = 'v2';
const UNBOUND = 'v1';
const IV_BYTES = 12;
/** The full 16-byte tag, always: GCM would verify a truncated tag, which is far easier to forge. */
const TAG_BYTES = 16;

export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}

const aad = (at: SealedAt) => Buffer.from(`${at.table}:${at.column}:${at.row}`, 'utf8');

export function createSecretBox(current: Buffer, old: readonly Buffer[] = []): SecretBox {
  if (current.length !== 32) throw new Error('encryption key must be 32 bytes');
  const currentKeyId = keyId(current);
  const keys = new Map<string, Buffer>([[currentKeyId, current]]);
  for (const key of old) if (!keys.has(keyId(key))) keys.set(keyId(key), key);

  const parse = (sealed: string) => {
    const [version, kid, iv, tag, data, ...rest] = sealed.split(':');
    if ((version !== VERSION && version !== UNBOUND) || !kid || !iv || !tag || data === undefined || rest.length > 0)
      throw new Error('not a sealed value');
    const parsed = {
      version,
      kid,
      iv: Buffer.from(iv, 'base64'),
      tag: Buffer.from(tag, 'base64'),
      data: Buffer.from(data, 'base64'),
    };
    if (parsed.iv.length !== IV_BYTES || parsed.tag.length !== TAG_BYTES) throw new Error('not a sealed value');
    return parsed;
  };

  const box: SecretBox = {
    currentKeyId,
    seal(plaintext, at) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(at));
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        VERSION,
        currentKeyId,
        iv.toString('base64'),
        cipher.getAuthTag().toString('base64'),
        data.toString('base64'),
      ].join(':');
    },
    open(sealed, at) {
      const { version, kid, iv, tag, data } = parse(sealed);
      const key = keys.get(kid);
      if (!key) throw new Error(`no encryption key with id ${kid} is configured`);
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      if (version === VERSION) decipher.setAAD(aad(at));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
    },
    isStale(sealed) {
      const { version, kid } = parse(sealed);
      return version !== VERSION || kid !== currentKeyId;
    },
    reseal(sealed, at) {
      return box.isStale(sealed) ? box.seal(box.open(sealed, at), at) : sealed;
    },
    deriveKey(purpose) {
      return Buffer.from(hkdfSync('sha256', current, Buffer.alloc(0), `trading-platform:${purpose}`, 32));
    },
  };
  return box;
}
