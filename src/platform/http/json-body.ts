// The JSON body parser. Two refusals come before JSON.parse, each decided by one pass over the bytes
// (docs/decisions/095): bytes that are not UTF-8, which decoding would silently turn into U+FFFD and
// store, and nesting deeper than MAX_JSON_DEPTH, which the recursive steps after parsing (copy,
// validation, error reporting) cannot survive. Both answer FastAPI's `json_invalid` 422.
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { validationFailed, type AppError } from './errors.ts';
import { codePointOffset, locateJsonError } from './json-errors.ts';

/** Arrays and objects nested deeper than this are refused. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Byte offset of the bracket that opens level `limit + 1`, or -1. Works on bytes: in UTF-8 no byte
 * of a multi-byte character is ASCII, so brackets and quotes are found exactly.
 */
export function excessNesting(bytes: Uint8Array, limit = MAX_JSON_DEPTH): number {
  // Each level takes at least one byte.
  if (bytes.length <= limit) return -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > limit) return i;
    } else if ((byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) && depth > 0) {
      depth--;
    }
  }
  return -1;
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const trailing =
      lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0;
    if (trailing === 0) return i;
    const second = bytes[i + 1] ?? 0;
    // Overlong forms, UTF-16 surrogates and code points above U+10FFFF (RFC 3629, table 3-7 of Unicode).
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    if (second < low || second > high) return i;
    for (let k = 2; k <= trailing; k++) {
      if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return i;
    }
    i += trailing + 1;
  }
  return -1;
}

function jsonInvalidAt(position: number, error: string): AppError {
  return validationFailed([
    { type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error } },
  ]);
}

/** Python counts characters, not bytes: the position of `byteOffset` in the (valid) text before it. */
function characterPosition(bytes: Buffer, byteOffset: number): number {
  const before = bytes.toString('utf8', 0, byteOffset);
  return codePointOffset(before, before.length);
}

/** The parsed body, or the 422 that refuses it. */
export function parseJsonBody(bytes: Buffer): { value: unknown } | { error: AppError } {
  const invalid = firstInvalidUtf8(bytes);
  if (invalid >= 0) {
    const byte = bytes[invalid]!.toString(16).padStart(2, '0');
    return {
      error: jsonInvalidAt(characterPosition(bytes, invalid), `Invalid UTF-8: byte 0x${byte} cannot be decoded`),
    };
  }
  const tooDeep = excessNesting(bytes);
  if (tooDeep >= 0) {
    return {
      error: jsonInvalidAt(
        characterPosition(bytes, tooDeep),
        `Recursion limit exceeded: more than ${MAX_JSON_DEPTH} nested arrays or objects`,
      ),
    };
  }
  const text = bytes.toString('utf8');
  try {
    return { value: secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }) };
  } catch {
    // JSON.parse refused it; Python accepts a few texts it does not (NaN, Infinity), so fall back to
    // the start of the body when the scanner finds nothing.
    const found = locateJsonError(text) ?? { position: 0, message: 'Expecting value' };
    return { error: jsonInvalidAt(found.position, found.message) };
  }
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    request.rawBody = bytes;
    if (bytes.length === 0) return done(null, undefined);
    const parsed = parseJsonBody(bytes);
    if ('error' in parsed) done(parsed.error, undefined);
    else done(null, parsed.value);
  });
}
