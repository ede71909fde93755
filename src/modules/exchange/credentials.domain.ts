// Rules about a user's venue credential that need no I/O: its validation states and how much of
// its key a response may show.

/** pending (never tried), valid (the venue accepted it), invalid (refused), error (could not be asked). */
export const VALIDATION_STATUSES = ['pending', 'valid', 'invalid', 'error'] as const;
export type ValidationStatus = (typeof VALIDATION_STATUSES)[number];

/**
 * First four and last four characters around `****`, as the contract describes; but never more than
 * a third of the key, so a short key is not shown whole (the contract forbids returning it in full).
 */
export function maskApiKey(key: string): string {
  const shown = Math.min(4, Math.floor(key.length / 6));
  if (shown === 0) return '****';
  return `${key.slice(0, shown)}****${key.slice(-shown)}`;
}

/** Where each of a credential's secrets is sealed: its ciphertext opens in that row and column only. */
export const sealedAt = (row: string, column: 'api_key_sealed' | 'api_secret_sealed' | 'api_passphrase_sealed') => ({
  table: 'exchange_credentials',
  column,
  row,
});
