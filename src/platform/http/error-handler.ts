// The one place that turns errors into `{"detail": ...}` bodies. A 5xx never carries its cause.
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from './errors.ts';

const FRAMEWORK_ERRORS: Record<string, { status: number; detail: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, detail: 'Request body too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, detail: 'Unsupported media type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, detail: 'Content-Length does not match the body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, detail: 'Empty JSON body' },
};

export function registerErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((_request, reply) => {
    void reply.code(404).send({ detail: 'Not Found' });
  });

  app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      if (error.status >= 500) request.log.error({ err: error.cause ?? error }, 'request failed');
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
    request.log.error({ err: error }, 'unhandled error');
    void reply.code(500).send({ detail: 'Internal Server Error' });
  });
}
