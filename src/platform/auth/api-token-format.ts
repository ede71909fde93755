// The shape of an API token: `tpk_` and 43 base64url characters (32 random bytes).
import { randomBytes } from 'node:crypto';

export const API_TOKEN_PREFIX = 'tpk_';
/** Characters of a token shown in lists (`tpk_` and 8 more). */
export const SHOWN_PREFIX_LENGTH = 12;

export function newApiToken(): string {
  return `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}
