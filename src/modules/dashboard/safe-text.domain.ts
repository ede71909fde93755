// The dashboard is public (docs/decisions/080-dashboard-exposure.md): an error text from another
// module or an upstream may quote a URL with credentials or a webhook path, a token, or a person's
// e-mail address (an SMTP relay's refusal names the recipient). What we show is cut down to what an
// operator needs to act on and nothing an attacker could use.

const MAX_CHARS = 200;
/** A URL: scheme, optional user:password@, host[:port], then anything up to a space or quote. */
const URL_PATTERN = /\b([a-z][a-z0-9+.-]*):\/\/(?:[^\s/@'"]*@)?([^\s/:?#'"]+)(?::\d+)?[^\s'"]*/gi;
/**
 * An e-mail address: a local part of the characters RFC 5322 allows unquoted, `@`, then a domain
 * (labels, or an address literal in brackets). No leading `'`, which quotes more often than it
 * spells a name. Masked whole: a domain may name the person too.
 */
const EMAIL_PATTERN =
  /[\p{L}\p{N}!#$%&*+/=?^_`{|}~.-][\p{L}\p{N}!#$%&'*+/=?^_`{|}~.-]*@(?:\[[^\]\s]*\]|[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*)/gu;
const BEARER_PATTERN = /\b(bearer|basic|token)\s+[^\s,;]+/gi;
/** Long runs of key-like characters with a digit in them: API keys, signatures, tokens. */
const TOKEN_PATTERN = /\b(?=[A-Za-z0-9_\-+/=]*\d)[A-Za-z0-9_\-+/=]{24,}/g;

/**
 * An error message fit for the public dashboard: URLs reduced to `scheme://host` (no credentials,
 * path or query: a chat webhook's path is its secret), e-mail addresses, credentials after
 * `Bearer`/`Basic` and long token-like strings masked, whitespace collapsed, at most 200
 * characters. Null stays null.
 */
export function safeErrorText(message: string | null | undefined): string | null {
  if (message === null || message === undefined) return null;
  const cleaned = message
    .replace(URL_PATTERN, (_match, scheme: string, host: string) => `${scheme.toLowerCase()}://${host}`)
    .replace(EMAIL_PATTERN, '[e-mail]')
    .replace(BEARER_PATTERN, (_match, scheme: string) => `${scheme} [redacted]`)
    .replace(TOKEN_PATTERN, '[redacted]')
    .replace(/\s+/g, ' ')
    .trim();
  if (cleaned.length === 0) return 'failed';
  return cleaned.length > MAX_CHARS ? `${cleaned.slice(0, MAX_CHARS - 1)}…` : cleaned;
}

/** Whether `text` holds an e-mail address (decision 954: a person's, never shown on the public dashboard). */
export function holdsEmail(text: string): boolean {
  EMAIL_PATTERN.lastIndex = 0;
  return EMAIL_PATTERN.test(text);
}

/** `text` with every e-mail address masked whole, as in safeErrorText; null stays null. */
export function withoutEmails(text: string | null): string | null {
  return text === null ? null : text.replace(EMAIL_PATTERN, '[e-mail]');
}
