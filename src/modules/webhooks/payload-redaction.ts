// Stored payloads keep what an operator needs to replay or debug a delivery, never credentials:
// the auth hook's one-time codes, a client secret in a payment object, a password column in a row.
const SECRET_KEY = /(password|secret|token|api[_-]?key|authorization|otp)/i;
const MAX_DEPTH = 32;

export const REDACTED = '[redacted]';

export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    copy[key] =
      SECRET_KEY.test(key) && item !== null && item !== '' && typeof item !== 'object'
        ? REDACTED
        : redactSecrets(item, depth + 1);
  }
  return copy;
}
