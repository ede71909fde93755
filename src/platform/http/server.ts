// The Node HTTP server under Fastify. Node answers two requests itself, with an empty body, before
// any framework code runs: an HTTP/1.1 request without Host (400) and an `Expect` other than
// 100-continue (417). Both are answered here instead, in the contract's `{"detail": ...}` shape.
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { SECURITY_HEADERS } from './http-conventions.ts';
import { keepTickObjectShape } from './tick-shape.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

function answer(response: ServerResponse, status: number, detail: string): void {
  const body = JSON.stringify({ detail });
  response.writeHead(status, STATUS_CODES[status], {
    ...SECURITY_HEADERS,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}

interface Drain {
  /** Answers not yet written when the drain began. */
  inFlight: Set<ServerResponse>;
  draining: boolean;
}

const drains = new WeakMap<Server, Drain>();

/**
 * The first step of a graceful stop (decision 104): from now on every answer closes its connection
 * (`Connection: close`), the ones in flight too, and a request arriving on a connection that is
 * already open is answered 503 at once. Connections are left open meanwhile, so a client that
 * sends on its kept-alive connection just after the signal gets an answer rather than a reset.
 */
export function startDraining(server: Server): void {
  const drain = drains.get(server);
  if (!drain || drain.draining) return;
  drain.draining = true;
  for (const response of drain.inFlight) if (!response.headersSent) response.shouldKeepAlive = false;
}

/**
 * `handler` gets every request that has a Host (or is HTTP/1.0); `first` may answer before it (the
 * micro-cache), and when it answers it must end the response before it returns.
 */
export function createHttpServer(
  handler: Handler,
  first?: (request: IncomingMessage, response: ServerResponse) => boolean,
  timeouts: { headersTimeoutMs: number; requestTimeoutMs: number } = {
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 60_000,
  },
): Server {
  keepTickObjectShape();
  const drain: Drain = { inFlight: new Set(), draining: false };
  // A connection that never finishes its request (headers trickled or never ended, a body sent slowly) is
  // answered 408 and closed once its time is up. Node's own bounds (60 s for the headers, 300 s for the
  // request, looked at every 30 s) let one such socket stay up to 90 s or 330 s: each costs a descriptor
  // and about 9 KiB, and nothing else limits how many a client opens (decision 821). The bound ends when
  // the request has arrived: a stream's response lasts as long as it lasts.
  const requestTimeout = timeouts.requestTimeoutMs;
  const headersTimeout = Math.min(timeouts.headersTimeoutMs, requestTimeout);
  const options = {
    requireHostHeader: false,
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.min(1_000, headersTimeout),
  };
  const server = createServer(options, (request, response) => {
    // RFC 9112 section 3.2: a server MUST answer 400 to an HTTP/1.1 request without Host.
    if (request.headers.host === undefined && request.httpVersion === '1.1')
      return answer(response, 400, 'Missing Host header');
    if (drain.draining) {
      response.setHeader('retry-after', '1');
      return answer(response, 503, 'The server is shutting down');
    }
    // `first` answers whole and at once when it answers (headers and body in one synchronous write), so
    // its answers are never in flight when a drain begins and need no tracking: a listener and a closure
    // per request less on the hottest path.
    if (first?.(request, response)) return;
    drain.inFlight.add(response);
    response.once('close', () => drain.inFlight.delete(response));
    handler(request, response);
  });
  drains.set(server, drain);
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) =>
    answer(response, 417, 'Only Expect: 100-continue is supported'),
  );
  return server;
}
