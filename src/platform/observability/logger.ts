// Structured JSON logs. Secrets are removed twice: by path (headers and fields known to carry them)
// and by name at any depth (anything called like a password, token, key, secret or signature), so a
// module that logs a whole payload cannot leak what is nested inside it.
import pino, { type DestinationStream, type Logger } from 'pino';

const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-scheduled-job-secret"]',
  'req.headers["x-mbx-apikey"]',
  'req.headers["x-hub-signature-256"]',
  'req.headers["payments-signature"]',
  'req.headers["stripe-signature"]',
  'req.headers["x-vercel-signature"]',
  'req.headers["tracker-signature"]',
  'req.headers["linear-signature"]',
  'req.headers["errormon-hook-signature"]',
  'req.headers["sentry-hook-signature"]',
  'req.headers["x-mailer-signature"]',
  'req.headers["svix-signature"]',
  'req.headers["webhook-signature"]',
  'headers.authorization',
  'headers["x-mbx-apikey"]',
  '*.password',
  '*.newPassword',
  '*.password_hash',
  '*.passwordHash',
  '*.api_key',
  '*.apiKey',
  '*.api_secret',
  '*.apiSecret',
  '*.secret',
  '*.api_passphrase',
  '*.passphrase',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.accessToken',
  '*.refreshToken',
  'password',
  'api_key',
  'api_secret',
  'secret',
  'token',
];

const CENSOR = '[redacted]';
const SECRET_SUFFIXES = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'ticket',
  'apikey',
  'authorization',
  'cookie',
  'privatekey',
  'encryptionkey',
];

/** Whether a field or header of this name carries a secret (`api_key`, `X-MBX-APIKEY`, `refreshToken`...). */
export function isSecretName(name: string): boolean {
  const normalized = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return normalized.includes('signature') || SECRET_SUFFIXES.some((suffix) => normalized.endsWith(suffix));
}

function isPlain(value: unknown): value is Record<string, unknown> {
  if (!value || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * A copy with every secret-named field replaced. Only plain objects and arrays are walked: requests,
 * replies and errors are left to their serializers.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8) return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  if (!isPlain(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    // Flags such as `has_passphrase: true` say nothing secret; empty values neither.
    const revealing = child !== null && child !== undefined && child !== '' && typeof child !== 'boolean';
    copy[key] = revealing && isSecretName(key) ? CENSOR : redactSecrets(child, depth + 1);
  }
  return copy;
}

/** A URL with the values of secret-named query parameters replaced. */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query < 0) return url;
  const params = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const [name = '', ...rest] = pair.split('=');
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // keep the raw name
      }
      return rest.length > 0 && isSecretName(decoded) ? `${name}=${CENSOR}` : pair;
    });
  return `${url.slice(0, query)}?${params.join('&')}`;
}

interface FailedQuery {
  query: string;
  params: unknown[];
}

/** Every failed query carried by an error or its causes (drizzle's DrizzleQueryError keeps query and params). */
function failedQueries(error: unknown, depth = 0): FailedQuery[] {
  if (!error || typeof error !== 'object' || depth > 8) return [];
  const { query, params, cause } = error as { query?: unknown; params?: unknown; cause?: unknown };
  const own = Array.isArray(params) ? [{ query: typeof query === 'string' ? query : '', params }] : [];
  return [...own, ...failedQueries(cause, depth + 1)];
}

/**
 * The column each placeholder of a statement is bound to, where the text says so: `"col" = $n`
 * (WHERE, SET) and the column lists of `INSERT ... (cols) VALUES ($a, $b), ...`.
 */
function placeholderColumns(query: string): Map<number, string> {
  const columns = new Map<number, string>();
  for (const match of query.matchAll(
    /"?([A-Za-z_][A-Za-z0-9_]*)"?\s*(?:=|<>|!=|<=|>=|<|>|\bin\b|\blike\b|\bilike\b)\s*\(?\$(\d+)/gi,
  )) {
    columns.set(Number(match[2]), match[1]!);
  }
  const insert = /insert\s+into\s+\S+\s*\(([^)]*)\)\s*values\s*((?:\([^)]*\)\s*,?\s*)+)/i.exec(query);
  if (insert) {
    const names = insert[1]!.split(',').map((name) => name.trim().replace(/^"|"$/g, ''));
    for (const tuple of insert[2]!.matchAll(/\(([^)]*)\)/g)) {
      tuple[1]!.split(',').forEach((value, index) => {
        const placeholder = /^\s*\$(\d+)\s*$/.exec(value);
        if (placeholder && names[index]) columns.set(Number(placeholder[1]), names[index]);
      });
    }
  }
  return columns;
}

/** Unnamed values at least this long are scrubbed too: a sealed key or hash in a raw statement. */
const UNNAMED_SECRET_MIN_LENGTH = 8;

/**
 * The values of a failed query that may be secret: those bound to a secret-named column (any length),
 * and those no column name explains once they are long enough to be a key, hash or token. A short
 * value (a limit, a flag, an id) is not, and scrubbing it would garble the text it appears in.
 */
/** A query parameter as the driver's message shows it; never throws (bigints, cycles). */
function paramText(param: unknown): string {
  if (typeof param === 'string') return param;
  if (typeof param === 'bigint') return param.toString();
  try {
    return (
      JSON.stringify(param, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)) ?? ''
    );
  } catch {
    return String(param);
  }
}

function secretQueryValues(error: unknown): string[] {
  const values = new Set<string>();
  for (const { query, params } of failedQueries(error)) {
    const columns = placeholderColumns(query);
    params.forEach((param, index) => {
      const value = paramText(param);
      if (value.length === 0) return;
      const column = columns.get(index + 1);
      if (column ? isSecretName(column) : value.length >= UNNAMED_SECRET_MIN_LENGTH) values.add(value);
    });
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** A stack frame line (`    at fn (file:line:col)`): it never quotes a value, so it is never scrubbed. */
const FRAME = /^\s+at\s/;

/**
 * pino's error serializer, less the values a failed query was writing: drizzle puts them in the
 * error's `params` and in its message (and so the head of its stack), and they may be password
 * hashes or sealed keys. Stack frames are left as they are, so traces stay readable.
 */
function serializeError(error: Error): Record<string, unknown> {
  const serialized = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
  const hasQuery = failedQueries(error).length > 0;
  if (!hasQuery) return serialized;
  const values = secretQueryValues(error);
  const scrubLine = (line: string) =>
    FRAME.test(line) ? line : values.reduce((out, value) => out.replaceAll(value, CENSOR), line);
  const scrub = (text: unknown) => (typeof text === 'string' ? text.split('\n').map(scrubLine).join('\n') : text);
  // drizzle's message ends with every parameter (`params: a,b,c`): that line goes whole.
  const withoutParams = (text: unknown) =>
    typeof text === 'string' ? text.replace(/^params: .*$/m, `params: ${CENSOR}`) : text;
  serialized.message = scrub(withoutParams(serialized.message));
  serialized.stack = scrub(withoutParams(serialized.stack));
  if ('params' in serialized) serialized.params = CENSOR;
  return serialized;
}

interface LoggedRequest {
  method: string;
  url: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: CENSOR },
      base: { service: 'trading-platform' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { log: (object) => redactSecrets(object) as Record<string, unknown> },
      serializers: {
        err: serializeError,
        req: (request: LoggedRequest) => ({
          method: request.method,
          url: redactUrl(request.url),
          host: request.hostname,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        }),
      },
    },
    destination,
  );
}
