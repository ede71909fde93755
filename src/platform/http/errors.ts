// One error type with a closed set of codes and one table from code to HTTP status.
import { isSecretName } from '../observability/logger.ts';
export const ERROR_STATUS = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation: 422,
  rate_limited: 429,
  internal: 500,
  upstream_error: 502,
  unavailable: 503,
  upstream_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Pydantic v2 error item, as FastAPI writes it in a 422. */
export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

export interface AppErrorOptions {
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    /** The `detail` of the body: a sentence, or the list of issues for a 422. */
    readonly detail: string | ValidationIssue[] | Record<string, unknown>,
    options: AppErrorOptions = {},
  ) {
    super(typeof detail === 'string' ? detail : code, { cause: options.cause });
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
    this.headers = options.headers ?? {};
  }
}

export const notFound = (detail = 'Not Found') => new AppError('not_found', detail);
export const conflict = (detail: string) => new AppError('conflict', detail);
export const forbidden = (detail = 'Not enough permissions') => new AppError('forbidden', detail);
export const badRequest = (detail: string) => new AppError('bad_request', detail);
export const unavailable = (detail: string, options?: AppErrorOptions) => new AppError('unavailable', detail, options);
export const unauthenticated = (detail = 'Not authenticated') =>
  new AppError('unauthenticated', detail, { headers: { 'www-authenticate': 'Bearer' } });
export const rateLimited = (retryAfterSeconds: number, detail = 'Too many requests') =>
  new AppError('rate_limited', detail, { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) } });
/** What a 422 shows in place of a secret it would otherwise echo back (Pydantic quotes every input). */
export const MASKED_INPUT = '**********';

function maskSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8 || !value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    copy[key] = typeof child === 'string' && child !== '' && isSecretName(key) ? MASKED_INPUT : maskSecrets(child, depth + 1);
  }
  return copy;
}

/** The issue with any password, key or token in its input masked: at its loc, or inside a quoted body. */
function maskSecretInput(issue: ValidationIssue): ValidationIssue {
  const field = issue.loc.filter((part) => typeof part === 'string').at(-1);
  if (typeof issue.input === 'string' && issue.input !== '' && field !== undefined && isSecretName(String(field))) {
    return { ...issue, input: MASKED_INPUT };
  }
  return issue.input && typeof issue.input === 'object' ? { ...issue, input: maskSecrets(issue.input) } : issue;
}

export const validationFailed = (issues: ValidationIssue[]) => new AppError('validation', issues.map(maskSecretInput));

/** A single-field 422 raised by service logic, shaped as Pydantic would have reported it. */
export function invalidField(
  loc: (string | number)[],
  msg: string,
  input: unknown,
  type = 'value_error',
  ctx?: Record<string, unknown>,
): AppError {
  const issue: ValidationIssue = { type, loc, msg: type === 'value_error' ? `Value error, ${msg}` : msg, input };
  if (ctx) issue.ctx = ctx;
  else if (type === 'value_error') issue.ctx = { error: msg };
  return validationFailed([issue]);
}
