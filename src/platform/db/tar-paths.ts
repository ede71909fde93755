// PGlite's `dumpDataDir` writes its tar entries with absolute names (`/PG_VERSION`, `/base/1/112`):
// `tar -xf` of such a backup warns and a careless one writes under `/`. A backup's entries are made
// relative to the data directory instead; PGlite's loader joins either form to its data directory,
// so both old and new backups restore.

const BLOCK = 512;
const NAME = [0, 100] as const;
const SIZE = [124, 136] as const;
const CHECKSUM = [148, 156] as const;
const MAGIC = [257, 263] as const;
const PREFIX = [345, 500] as const;

const text = (block: Buffer, [start, end]: readonly [number, number]) =>
  block.toString('latin1', start, end).replace(/\0.*$/s, '');

/** Writes `value` into the field, NUL-padded. */
function writeField(block: Buffer, [start, end]: readonly [number, number], value: string): void {
  block.fill(0, start, end);
  block.write(value, start, end - start, 'latin1');
}

function writeChecksum(block: Buffer): void {
  block.fill(0x20, CHECKSUM[0], CHECKSUM[1]);
  let sum = 0;
  for (const byte of block) sum += byte;
  writeField(block, CHECKSUM, `${sum.toString(8).padStart(6, '0')}\0 `);
}

/** A copy of the tar whose entry names have no leading `/`. */
export function withRelativeNames(tar: Uint8Array): Buffer {
  const out = Buffer.from(tar);
  let offset = 0;
  while (offset + BLOCK <= out.length) {
    const block = out.subarray(offset, offset + BLOCK);
    if (block.every((byte) => byte === 0)) break;
    const ustar = text(block, MAGIC).startsWith('ustar');
    const prefix = ustar ? text(block, PREFIX) : '';
    const field = prefix !== '' ? PREFIX : NAME;
    const value = text(block, field);
    if (value.startsWith('/')) {
      writeField(block, field, value.replace(/^\/+/, ''));
      writeChecksum(block);
    }
    const size = Number.parseInt(text(block, SIZE).trim() || '0', 8);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return out;
}

/** The entry names of a tar, in order. */
export function tarEntryNames(tar: Uint8Array): string[] {
  const bytes = Buffer.from(tar.buffer, tar.byteOffset, tar.byteLength);
  const names: string[] = [];
  let offset = 0;
  while (offset + BLOCK <= bytes.length) {
    const block = bytes.subarray(offset, offset + BLOCK);
    if (block.every((byte) => byte === 0)) break;
    const prefix = text(block, MAGIC).startsWith('ustar') ? text(block, PREFIX) : '';
    names.push(prefix ? `${prefix}/${text(block, NAME)}` : text(block, NAME));
    offset += BLOCK + Math.ceil(Number.parseInt(text(block, SIZE).trim() || '0', 8) / BLOCK) * BLOCK;
  }
  return names;
}
