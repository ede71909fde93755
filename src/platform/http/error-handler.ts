// The one place that turns errors into `{"detail": ...}` bodies. A 5xx never carries its cause.
// Errors the framework and Node answer before a route is found (bad URLs, oversized headers,
// unknown methods) get the same shape here (docs/decisions/096).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { databaseOutage, isDatabaseUnavailable, isPoolSaturated, statementTimeoutOf } from '../db/database.ts';
import { AppError } from './errors.ts';
import { SECURITY_HEADERS } from './http-conventions.ts';

const FRAMEWORK_ERRORS: Record<string, { status: number; detail: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, detail: 'Request body too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, detail: 'Unsupported media type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, detail: 'Content-Length does not match the body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, detail: 'Empty JSON body' },
  FST_ERR_BAD_URL: { status: 400, detail: 'The URL is not valid percent-encoded UTF-8' },
  // Unreachable while the router's parameter limit is above Node's header limit (app.ts); kept in shape.
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, detail: 'URI Too Long' },
};

/** Methods probed to tell a wrong method (405) from an unknown path (404). */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

interface ErrorHandlingOptions {
  /**
   * URL prefix of routes serving files (the docs UI). Their file server refuses traversal, NUL bytes
   * and malformed paths with a 4xx of its own; such a path names no file we have, so it is a 404.
   */
  filesUnder?: string;
}

/** The methods some route accepts at this URL; none when the URL matches no route at all. */
function allowedMethods(app: FastifyInstance, url: string): string[] {
  const path = url.split('?', 1)[0]!;
  // The router answers any URL it cannot read with a handler of its own: only probe readable paths.
  try {
    decodeURI(path);
  } catch {
    return [];
  }
  if (!path.startsWith('/')) return [];
  return METHODS.filter((method) => app.findRoute({ method: method as 'GET', url: path }) !== null);
}

/** What a request answers while the database cannot be reached or does not answer in time. */
const DATABASE_UNAVAILABLE = { detail: 'Database unavailable', retryAfterSeconds: 2 } as const;

/** What a request answers when every pooled connection stayed busy for its whole wait while the database answered. */
const DATABASE_BUSY = {
  detail: 'The server is busy: every database connection stayed in use while this request waited; try again shortly',
  retryAfterSeconds: 1,
} as const;

/** What a request answers when the database stopped one of its statements at the statement bound. */
const QUERY_TOO_SLOW = {
  detail:
    'The database took too long to answer this request; try again, or ask for less (a ' +
    'narrower filter or a smaller page)',
  retryAfterSeconds: 2,
} as const;

/**
 * A statement named for a log line: its text without its column list, cut to 200 characters. The
 * parameters are not in the text ($1, $2, ...), so none is ever logged.
 */
const statementName = (query: string) => query.replace(/^select\s[\s\S]*?\sfrom\s/i, 'select … from ').slice(0, 200);

export function registerErrorHandling(app: FastifyInstance, options: ErrorHandlingOptions = {}): void {
  app.setNotFoundHandler((request, reply) => {
    // As Starlette answers: a path that exists under other methods is a 405 listing them.
    const allowed = allowedMethods(app, request.url);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      void reply.code(405).header('allow', allowed.join(', ')).send({ detail: 'Method Not Allowed' });
      return;
    }
    void reply.code(404).send({ detail: 'Not Found' });
  });

  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    // A statement stopped by the server's statement_timeout: the database answers, this query is
    // slow. Not an outage: a warning naming the route and the statement, and its own 503.
    const slow = error instanceof AppError ? undefined : statementTimeoutOf(error);
    if (slow) {
      request.log.warn(
        { route: `${request.method} ${request.routeOptions.url ?? ''}`, statement: statementName(slow.query) },
        'slow query: stopped at the statement bound',
      );
      void reply
        .code(503)
        .header('retry-after', String(QUERY_TOO_SLOW.retryAfterSeconds))
        .send({ detail: QUERY_TOO_SLOW.detail });
      return;
    }
    // A burst larger than the pool while the database answers: busy, not down; logged once per episode.
    if (!(error instanceof AppError) && isPoolSaturated(error)) {
      if (databaseOutage.saturated())
        request.log.warn(
          { route: `${request.method} ${request.routeOptions.url ?? ''}` },
          'database pool saturated: answering 503 busy',
        );
      void reply
        .code(503)
        .header('retry-after', String(DATABASE_BUSY.retryAfterSeconds))
        .send({ detail: DATABASE_BUSY.detail });
      return;
    }
    // A database that is down or hung is an outage to wait out, not a bug: 503, logged once. (An
    // AppError has chosen its answer; its cause may be an upstream's reset connection.)
    if (!(error instanceof AppError) && isDatabaseUnavailable(error)) {
      if (databaseOutage.failed())
        request.log.warn({ err: error }, 'database unavailable: answering 503 until it returns');
      void reply
        .code(503)
        .header('retry-after', String(DATABASE_UNAVAILABLE.retryAfterSeconds))
        .send({ detail: DATABASE_UNAVAILABLE.detail });
      return;
    }
    if (error instanceof AppError) {
      // An outside system's outage is expected and said once per request, without a stack or the
      // cause (whose message may carry a signed URL); anything else at 5xx is a bug (decision 396).
      if (error.status >= 500 && error.outage) {
        const { dependency, failure, code } = error.outage;
        request.log.warn(
          { dependency, failure, ...(code ? { code } : {}), status: error.status },
          `${dependency} unavailable (${failure}): answering ${error.status}`,
        );
      } else if (error.status >= 500) request.log.error({ err: error.cause ?? error }, 'request failed');
      void reply.code(error.status).headers(error.headers).send({ detail: error.detail });
      return;
    }
    const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
    if (known) {
      void reply.code(known.status).send({ detail: known.detail });
      return;
    }
    // Only the framework's own 4xx errors speak for themselves; anything else carrying a status (a
    // library's HTTP error, an upstream's message) is a bug to log, not a sentence for the client.
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500 && error.code?.startsWith('FST_')) {
      void reply.code(status).send({ detail: error.message });
      return;
    }
    if (
      status >= 400 &&
      status < 500 &&
      options.filesUnder &&
      request.routeOptions.url?.startsWith(options.filesUnder)
    ) {
      void reply.code(404).send({ detail: 'Not Found' });
      return;
    }
    request.log.error({ err: error }, 'unhandled error');
    void reply.code(500).send({ detail: 'Internal Server Error' });
  });
}

/**
 * Fastify's `frameworkErrors`: the router's refusals (bad percent-encoding), answered in our shape.
 * No route matched, so no hook runs: the headers every answer carries are set here.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const known = FRAMEWORK_ERRORS[error.code] ?? { status: 400, detail: 'Bad Request' };
  void reply
    .code(known.status)
    .headers({ ...SECURITY_HEADERS, 'x-request-id': request.id })
    .send({ detail: known.detail });
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before there is a request (headers
 * over the size limit, a malformed request line, a request that took too long), in our shape.
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  this.log.debug({ err: error }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify({ detail: STATUS_CODES[status] });
    const headers = Object.entries({
      ...SECURITY_HEADERS,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`,
    );
  }
  socket.destroy(error);
}
