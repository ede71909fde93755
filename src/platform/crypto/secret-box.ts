// AES-256-GCM with a key id in every ciphertext, so that values sealed under a retired key stay
// readable (ENCRYPTION_KEYS_OLD) until the rotation job re-seals them under the current one.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
  /** True when the value was sealed under a key other than the current one. */
  isStale(sealed: string): boolean;
  /** Re-seals under the current key; returns the input unchanged when it already is. */
  reseal(sealed: string): string;
  readonly currentKeyId: string;
}

const VERSION = 'v1';

export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}

export function createSecretBox(current: Buffer, old: readonly Buffer[] = []): SecretBox {
  if (current.length !== 32) throw new Error('encryption key must be 32 bytes');
  const currentKeyId = keyId(current);
  const keys = new Map<string, Buffer>([[currentKeyId, current]]);
  for (const key of old) if (!keys.has(keyId(key))) keys.set(keyId(key), key);

  const parse = (sealed: string) => {
    const [version, kid, iv, tag, data] = sealed.split(':');
    if (version !== VERSION || !kid || !iv || !tag || data === undefined) throw new Error('not a sealed value');
    return { kid, iv: Buffer.from(iv, 'base64'), tag: Buffer.from(tag, 'base64'), data: Buffer.from(data, 'base64') };
  };

  const box: SecretBox = {
    currentKeyId,
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, currentKeyId, iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
    },
    open(sealed) {
      const { kid, iv, tag, data } = parse(sealed);
      const key = keys.get(kid);
      if (!key) throw new Error(`no encryption key with id ${kid} is configured`);
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
    },
    isStale(sealed) {
      return parse(sealed).kid !== currentKeyId;
    },
    reseal(sealed) {
      return box.isStale(sealed) ? box.seal(box.open(sealed)) : sealed;
    },
  };
  return box;
}
