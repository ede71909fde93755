// How much of an API key a response may show. Pure.

/**
 * First four and last four characters around `****`, as the contract describes; but never more than
 * a third of the key, so a short key is not shown whole (the contract forbids returning it in full).
 */
export function maskApiKey(key: string): string {
  const shown = Math.min(4, Math.floor(key.length / 6));
  if (shown === 0) return '****';
  return `${key.slice(0, shown)}****${key.slice(-shown)}`;
}
