// RFC 6238 TOTP and RFC 4648 base32, written out for the tests, so the library the service uses is
// checked against them rather than against itself.
import { createHmac } from 'node:crypto';

/** RFC 6238's reference algorithm: the code of `key` at a Unix time. */
export function referenceTotp(key: Buffer, unixSeconds: number, digits: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(unixSeconds / 30)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** RFC 4648 base32 without padding. */
export function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of bytes) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
}

/** RFC 4648 base32 to bytes (padding ignored). */
export function decodeBase32(text: string): number[] {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of text.replace(/=+$/, '')) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return bytes;
}

/** The 6-digit code of a base32 secret at a time (now by default), by the reference algorithm. */
export const codeOf = (secret: string, at: Date = new Date()): string =>
  referenceTotp(Buffer.from(decodeBase32(secret)), Math.floor(at.getTime() / 1000), 6);
