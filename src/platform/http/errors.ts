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
  /** The resource is locked: trading halted (issue 39). */
  locked: 423,
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

/** How a call failed to reach an outside system (src/platform/transport-failures.ts). */
export type TransportFailure = 'refused' | 'timeout' | 'reset' | 'dns' | 'unreachable';

/**
 * A 5xx that is an outside system's expected outage, not a bug (decision 396): logged as one warning
 * naming the system and the failure, without a stack. `breaker_open` and `budget_spent`: the venue's
 * budget refused the call, nothing was sent. `venue_5xx`: the venue (or the issue tracker, decision 408)
 * answered HTTP 502, 503 or 504; `maintenance`: it said in its own words that it is in maintenance or
 * unavailable (decision 405).
 */
export interface DependencyOutage {
  /** The outside system, e.g. `Binance`, `binance`, `CoinGecko`. */
  dependency: string;
  failure: TransportFailure | 'breaker_open' | 'budget_spent' | 'venue_5xx' | 'maintenance';
  /** What told the failure: the socket's code (`ECONNREFUSED`) or the venue's status (`HTTP 503`), when there was one. */
  code?: string;
}

interface AppErrorOptions {
  headers?: Record<string, string>;
  cause?: unknown;
  outage?: DependencyOutage;
}

export class AppError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly outage: DependencyOutage | undefined;

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
    this.outage = options.outage;
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
  new AppError('rate_limited', detail, {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });
/** What a 422 shows in place of a secret it would otherwise echo back (Pydantic quotes every input). */
export const MASKED_INPUT = '**********';

/**
 * Bounds of what a 422 echoes back (decision 130). Pydantic quotes every offending input whole, so a
 * large body missing two fields came back twice; here an answer stays small whatever was sent.
 */
export const ECHO_LIMITS = {
  /** A longer string is echoed as its first this many characters and `…`. */
  stringChars: 1024,
  /** Characters of JSON one issue's `input` may take; a larger list or object is cut short. */
  inputChars: 8192,
  /** Characters of JSON all the inputs of one answer may take together. */
  totalInputChars: 32_768,
  /** Issues listed; the first ones, in FastAPI's order. */
  issues: 50,
  /** Characters of a key (in `loc` or an echoed object) before it is cut short. */
  keyChars: 128,
  /** Bytes of the whole answer, `{"detail": [...]}`: issues past it are left out. */
  answerBytes: 60 * 1024,
} as const;

/** What stands for the part of a value that is not echoed. */
export const ELLIPSIS = '\u2026';

/** The first `max` characters and `…`, without splitting a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}${ELLIPSIS}`;
}

/**
 * A copy of `value` of at most about `budget.left` characters of JSON, with every non-empty string
 * under a password, key or token name masked. Walks only what it keeps: the cost of a 1 MB body is
 * that of the part echoed.
 */
function echo(value: unknown, budget: { left: number }, secret: boolean): unknown {
  if (typeof value === 'string') {
    if (secret && value !== '') return MASKED_INPUT;
    const text = clip(value, Math.min(ECHO_LIMITS.stringChars, Math.max(budget.left - 2, 16)));
    budget.left -= text.length + 2;
    return text;
  }
  if (value === null || typeof value !== 'object') {
    budget.left -= String(value).length;
    return value;
  }
  budget.left -= 2;
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      if (budget.left <= 0) {
        copy.push(`${ELLIPSIS} ${value.length - i} more item${value.length - i === 1 ? '' : 's'}`);
        break;
      }
      copy.push(echo(value[i], budget, false));
      budget.left -= 1;
    }
    return copy;
  }
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (budget.left <= 0) {
      copy[ELLIPSIS] = 'more fields';
      break;
    }
    const shown = clip(key, ECHO_LIMITS.keyChars);
    budget.left -= shown.length + 4;
    copy[shown] = echo((value as Record<string, unknown>)[key], budget, isSecretName(key));
  }
  return copy;
}

/**
 * The issue with its input bounded and any password, key or token in it masked: at its loc, or inside a quoted body.
 */
function echoedIssue(issue: ValidationIssue, inputs: { left: number }): ValidationIssue {
  const field = issue.loc.filter((part) => typeof part === 'string').at(-1);
  const budget = { left: Math.min(ECHO_LIMITS.inputChars, inputs.left) };
  const before = budget.left;
  const input = echo(issue.input, budget, field !== undefined && isSecretName(String(field)));
  inputs.left -= before - budget.left;
  const loc = issue.loc.map((part) => (typeof part === 'string' ? clip(part, ECHO_LIMITS.keyChars) : part));
  return { ...issue, loc, input };
}

/**
 * The issues a 422 lists: at most ECHO_LIMITS.issues, each input bounded, the whole answer
 * under ECHO_LIMITS.answerBytes.
 */
export function boundedIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  const inputs = { left: ECHO_LIMITS.totalInputChars };
  const listed = issues.slice(0, ECHO_LIMITS.issues).map((issue) => echoedIssue(issue, inputs));
  while (listed.length > 1 && Buffer.byteLength(JSON.stringify({ detail: listed })) > ECHO_LIMITS.answerBytes)
    listed.pop();
  return listed;
}

export const validationFailed = (issues: ValidationIssue[]) => new AppError('validation', boundedIssues(issues));

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
