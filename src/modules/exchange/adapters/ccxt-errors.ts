// The one translation of ccxt's exceptions into VenueError. Order matters: ccxt files InvalidNonce,
// RateLimitExceeded and DDoSProtection under NetworkError, and PermissionDenied under
// AuthenticationError, so the narrower classes are tested first.
import type { DependencyOutage } from '../../../platform/http/errors.ts';
import { transportFailureOf } from '../../../platform/transport-failures.ts';
import { VenueError, type VenueFailure } from './venue-gateway.ts';

/** The ccxt error classes we tell apart (the module's own exports, so instanceof holds). */
export interface CcxtErrorClasses {
  AuthenticationError: abstract new (...args: never[]) => Error;
  PermissionDenied: abstract new (...args: never[]) => Error;
  AccountSuspended: abstract new (...args: never[]) => Error;
  RateLimitExceeded: abstract new (...args: never[]) => Error;
  DDoSProtection: abstract new (...args: never[]) => Error;
  InvalidNonce: abstract new (...args: never[]) => Error;
  RequestTimeout: abstract new (...args: never[]) => Error;
  ExchangeNotAvailable: abstract new (...args: never[]) => Error;
  OnMaintenance: abstract new (...args: never[]) => Error;
  NetworkError: abstract new (...args: never[]) => Error;
  BadSymbol: abstract new (...args: never[]) => Error;
  NotSupported: abstract new (...args: never[]) => Error;
  BadResponse: abstract new (...args: never[]) => Error;
}

/** Venue answers that mean a wrong key or signature although ccxt does not call them authentication errors. */
const KEY_REFUSALS = [/EAPI:Invalid signature/];

/** Seconds to wait after a 429 that carried no Retry-After. */
const DEFAULT_RETRY_AFTER_SECONDS = 10;

interface VenueMessage {
  code: number | string | null;
  text: string;
}

/**
 * The venue's own words from a ccxt message (`binance {"code":-2015,"msg":"..."}`), without URLs:
 * request URLs carry signatures and internal hosts, which belong in neither responses nor logs.
 */
export function venueMessage(venue: string, message: string): VenueMessage {
  const withoutVenue = message.startsWith(`${venue} `) ? message.slice(venue.length + 1) : message;
  const json = /\{.*\}\s*$/s.exec(withoutVenue)?.[0];
  if (json) {
    try {
      const body = JSON.parse(json) as Record<string, unknown>;
      const code = (body.code ?? body.retCode ?? body.error_code ?? null) as number | string | null;
      // Kraken lists its errors: `{"error": ["EAPI:Invalid key"], "result": {}}`.
      const listed = Array.isArray(body.error) && body.error.length > 0 ? body.error.join('; ') : undefined;
      const text = body.msg ?? body.message ?? body.retMsg ?? listed ?? body.error ?? body.reason;
      if (typeof text === 'string' && text) return { code, text: stripUrls(text) };
    } catch {
      // Not JSON after all; fall through to the plain text.
    }
  }
  return { code: null, text: withoutHtml(stripUrls(withoutVenue).trim()) || 'no details given' };
}

/**
 * A text without the HTML page it carries (a CDN's or proxy's error page in front of the venue): the page
 * is no venue's words and kilobytes long; its title says what it is.
 */
export function withoutHtml(text: string): string {
  const at = text.search(/<!doctype|<html|<head|<body/i);
  if (at < 0) return text;
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.replace(/\s+/g, ' ').trim().slice(0, 120);
  const page = title ? `an HTML page: "${title}"` : 'an HTML page';
  const before = text.slice(0, at).trim();
  return before ? `${before} (${page})` : page;
}

/** What a 2xx answer whose body is not JSON looked like, for its error: a page's title, else only its length (its text may be the account's). */
function bodyShape(body: string): string {
  const html = withoutHtml(body);
  return html !== body ? html : `${body.length} characters`;
}

/**
 * Every venue we reach answers its REST calls in JSON; ccxt hands a 2xx body it cannot parse to the
 * venue's parser as a string, which reads it as nothing: a CDN's page served with 200, or JSON cut short,
 * became an empty balance stored as the account's, an empty trade page, a ticker of nulls. Such an answer
 * is refused as the bad response it is (`BadResponse`, then `toVenueError`). An empty body passes (some
 * venues answer a cancel so); a body that starts and ends as JSON does is left to ccxt's own parse.
 */
export function refuseBodiesNotJson(exchange: unknown, BadResponse: new (message: string) => Error): void {
  const client = exchange as { id: string; onRestResponse(...args: unknown[]): string };
  const own = client.onRestResponse.bind(exchange);
  client.onRestResponse = (status, statusText, url, method, ...rest) => {
    const text = own(status, statusText, url, method, ...rest);
    if (typeof status !== 'number' || status < 200 || status >= 300 || text === '') return text;
    const first = text[0];
    const last = text.at(-1);
    if ((first === '{' && last === '}') || (first === '[' && last === ']')) return text;
    try {
      JSON.parse(text);
      return text;
    } catch {
      throw new BadResponse(`${client.id} ${String(method)} ${String(url)} ${status} ${bodyShape(text)}`);
    }
  };
}

/**
 * Venue answers that say nothing of whether the request was carried out, though ccxt files them as the
 * venue's refusal (ExchangeError, InvalidOrder): a 2xx or 4xx whose code is the venue's own "try again",
 * "timed out" or "internal error". Bybit answers them with HTTP 200; Kraken says it in its error list.
 */
const OUTCOME_UNKNOWN: Partial<Record<string, readonly string[]>> = {
  // Server Timeout; System error; Internal error; Order creation timeout; Order cancellation timeout; System Error.
  bybit: ['5004', '10016', '170001', '170146', '170147', '170234'],
  kraken: ['EService:Deadline elapsed'],
};

/** The HTTP status of the answer each error the venue's own handler threw was made of. */
const answerStatus = new WeakMap<Error, number>();

/**
 * Notes the HTTP status of the answer behind every error a venue's handler throws. ccxt's handlers read a
 * body before its status: a 5xx with a JSON body becomes whatever the body says (Coinbase's
 * `{"error": "internal_server_error"}` an ExchangeError, a refusal), and only a body no handler reads
 * reaches ccxt's mapping of statuses. The status is what `outcomeUnknown` needs.
 */
export function noteAnswerStatus(exchange: unknown): void {
  const client = exchange as { handleErrors(...args: unknown[]): unknown };
  const own = client.handleErrors.bind(exchange);
  client.handleErrors = (status, ...rest) => {
    try {
      return own(status, ...rest);
    } catch (error) {
      if (error instanceof Error && typeof status === 'number') answerStatus.set(error, status);
      throw error;
    }
  };
}

/**
 * Whether a venue's error leaves unknown whether it did what it was asked (decision 1250): any answer
 * with a 5xx status (PROTOCOLS: "outcome unknown; do not treat it as a failure"; no venue we reach refuses
 * with one), and the venue's own "timed out" or "internal error" codes above, whatever the status.
 */
export function outcomeUnknown(venue: string, error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ((answerStatus.get(error) ?? 0) >= 500) return true;
  const { code, text } = venueMessage(venue, error.message);
  const said = (entry: string) => String(code) === entry || text.split('; ').includes(entry);
  return (OUTCOME_UNKNOWN[venue] ?? []).some(said);
}

export function stripUrls(text: string): string {
  return text
    .replace(/\b(?:GET|POST|PUT|DELETE)\s+https?:\/\/\S+/g, '')
    .replace(/https?:\/\/\S+/g, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/**
 * Which of a refused key's causes the venue's words point to. Binance answers -2015 alike for an
 * unknown key, a request from an IP outside the key's whitelist and a missing permission, so that
 * answer stays `invalid_key` and the detail names all three.
 */
export function classifyAuthRefusal(
  message: VenueMessage,
  permissionDenied: boolean,
): Extract<VenueFailure, 'invalid_key' | 'ip_not_whitelisted' | 'missing_permission'> {
  const text = message.text;
  if (String(message.code) === '-2015' || /API-key, IP, or permissions/i.test(text)) return 'invalid_key';
  if (/\bip\b[^.]*\b(white-?list|allow-?list|not allowed|unmatched|not in|restricted|bound)/i.test(text))
    return 'ip_not_whitelisted';
  if (/(white-?list|allow-?list)[^.]*\bip\b/i.test(text)) return 'ip_not_whitelisted';
  if (permissionDenied || /permission/i.test(text)) return 'missing_permission';
  return 'invalid_key';
}

/**
 * The ccxt error as it may be logged (5xx causes are): same class name and stack frames, message
 * without request URLs, which carry signatures and query parameters.
 */
function loggableCause(error: Error): Error {
  const cause = new Error(stripUrls(error.message));
  cause.name = error.name;
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  cause.stack = [`${cause.name}: ${cause.message}`, ...frames].join('\n');
  return cause;
}

export function toVenueError(
  classes: CcxtErrorClasses,
  venue: string,
  error: unknown,
  responseHeaders: Record<string, string> | undefined,
): VenueError {
  if (error instanceof VenueError) return error;
  if (!(error instanceof Error)) return new VenueError(venue, 'rejected', `${venue} failed unexpectedly`);
  const cause = loggableCause(error);
  const message = venueMessage(venue, error.message);
  const said = message.code === null ? message.text : `${message.text} (code ${message.code})`;
  const retryAfter = retryAfterSeconds(responseHeaders);

  if (is(error, classes.RateLimitExceeded) || is(error, classes.DDoSProtection)) {
    // 418 is Binance's IP ban: the whole service is shut out, not just this caller.
    const banned = /\b418\b/.test(error.message) || /banned/i.test(message.text);
    return new VenueError(
      venue,
      banned ? 'ip_banned' : 'rate_limited',
      banned ? `${venue} has banned this service's IP for now: ${said}` : `${venue} rate limit reached: ${said}`,
      { retryAfterSeconds: retryAfter ?? DEFAULT_RETRY_AFTER_SECONDS, cause },
    );
  }
  if (is(error, classes.InvalidNonce)) {
    // Kraken's nonces of one key are in order from this service (decision 280): a refused one was
    // beaten by another program using the same key.
    const detail = /Invalid nonce/i.test(message.text)
      ? `${venue} refused the request's nonce even when asked again with a new one (${said}): another ` +
        'program is using this API key with greater nonces; give the platform a key of its own'
      : `${venue} rejected the request time even after resynchronising the clock: ${said}`;
    return new VenueError(venue, 'clock_skew', detail, { cause });
  }
  if (is(error, classes.RequestTimeout)) {
    return new VenueError(venue, 'timeout', `${venue} did not answer in time`, {
      cause,
      outage: { dependency: venue, failure: 'timeout' },
    });
  }
  if (is(error, classes.ExchangeNotAvailable)) {
    return new VenueError(venue, 'maintenance', `${venue} is unavailable: ${said}`, {
      retryAfterSeconds: retryAfter,
      cause,
      ...unavailableOutage(classes, venue, error),
    });
  }
  if (is(error, classes.BadResponse)) {
    // A body that is not JSON with a 2xx: something between the venue and us (a CDN, a proxy) answered.
    const status = HTTP_STATUS_IN_MESSAGE.exec(error.message);
    const shape = status ? `HTTP ${status[1]}, ${error.message.slice(status[0].length)}` : said;
    return new VenueError(venue, 'unreachable', `${venue} answered with a body that is not JSON (${shape})`, {
      cause,
    });
  }
  if (is(error, classes.NetworkError)) {
    // Only the socket error's code: the rest names hosts and ports of our network (proxies, fakes).
    const code = /\b(E[A-Z]{3,}|UND_ERR_[A-Z_]+)\b/.exec(error.message)?.[1] ?? 'connection failed';
    // ccxt calls any TypeError of the fetch a NetworkError, ours too: only a socket's code makes it an outage.
    const transport = transportFailureOf(error);
    return new VenueError(venue, 'unreachable', `${venue} could not be reached (${code})`, {
      cause,
      ...(transport ? { outage: { dependency: venue, ...transport } } : {}),
    });
  }
  if (is(error, classes.AuthenticationError)) {
    const failure = classifyAuthRefusal(message, is(error, classes.PermissionDenied));
    const lead = {
      invalid_key:
        String(message.code) === '-2015'
          ? `${venue} refused the API key (unknown key, this server's IP not on the key's ` +
            'whitelist, or a permission missing)'
          : `${venue} refused the API key`,
      ip_not_whitelisted: `${venue} refused the API key for this server's IP address`,
      missing_permission: `${venue} refused the API key: a permission is missing`,
    }[failure];
    return new VenueError(venue, failure, `${lead}: ${said}`, { cause });
  }
  if (KEY_REFUSALS.some((pattern) => pattern.test(message.text))) {
    // ccxt files Kraken's wrong-secret answer as a plain ExchangeError; it is the key's fault all the same.
    return new VenueError(venue, 'invalid_key', `${venue} refused the API key: ${said}`, { cause });
  }
  if (is(error, classes.BadSymbol)) {
    return new VenueError(venue, 'bad_symbol', `${venue} does not list that symbol: ${said}`, { cause });
  }
  if (is(error, classes.NotSupported)) {
    return new VenueError(venue, 'not_supported', `${venue} does not support this operation: ${said}`, { cause });
  }
  return new VenueError(venue, 'rejected', `${venue} answered with an error: ${said}`, { cause });
}

/**
 * Bybit sends no Retry-After; with no calls left in its per-UID window (X-Bapi-Limit-Status 0) its
 * X-Bapi-Limit-Reset-Timestamp (epoch ms) says when the window ends.
 */
function bybitReset(headers: Record<string, string>): number | undefined {
  const value = (name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const reset = Number(value('x-bapi-limit-reset-timestamp'));
  if (value('x-bapi-limit-status') !== '0' || !Number.isFinite(reset) || reset <= 0) return undefined;
  return Math.max(1, Math.ceil((reset - Date.now()) / 1000));
}

/** ccxt's message for an HTTP status it maps to a class: `<venue> <METHOD> <url> <status> <reason> <body>`. */
const HTTP_STATUS_IN_MESSAGE = /^\S+ (?:GET|POST|PUT|PATCH|DELETE) \S+ (\d{3}) /;

/**
 * Which ExchangeNotAvailable is an outage to wait out (decision 405): the venue's 502 or 503 (ccxt files
 * a 504 as RequestTimeout), or the venue's own words that it is in maintenance or unavailable (ccxt's
 * OnMaintenance, Kraken's `EService:Unavailable`), as no HTTP status of ccxt's mapping names. ccxt files
 * 400, 403, 404, 451, … there too: those may be our request or a region refused, and stay errors.
 */
function unavailableOutage(classes: CcxtErrorClasses, venue: string, error: Error): { outage?: DependencyOutage } {
  if (is(error, classes.OnMaintenance)) return { outage: { dependency: venue, failure: 'maintenance' } };
  const status = HTTP_STATUS_IN_MESSAGE.exec(error.message)?.[1];
  if (status === undefined) return { outage: { dependency: venue, failure: 'maintenance' } };
  if (status === '502' || status === '503' || status === '504')
    return { outage: { dependency: venue, failure: 'venue_5xx', code: `HTTP ${status}` } };
  return {};
}

/** instanceof without TypeScript narrowing `error` away after the first miss. */
function is(error: unknown, type: abstract new (...args: never[]) => Error): boolean {
  return error instanceof type;
}

function retryAfterSeconds(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  const entry = Object.entries(headers).find(([name]) => name.toLowerCase() === 'retry-after');
  if (!entry) return bybitReset(headers);
  const seconds = Number(entry[1]);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(entry[1]);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}
