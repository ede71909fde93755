// The HTTP server under every loopback fake that a client keeps connections to (the venues', the
// market data's, the AI providers', the chat and issue trackers', the identity provider's).
import { createServer, type RequestListener, type Server } from 'node:http';

/** How long a fake keeps an idle kept-alive connection open: Node's default is 5 s. */
export const FAKE_KEEP_ALIVE_MS = 60_000;

/**
 * A service on another machine reads a request on a kept-alive connection the moment it arrives; a
 * fake shares the app's event loop, so a stall of the app's (loading ccxt on a busy machine) holds the
 * request unread while the server's idle timer runs out, and the connection is reset under the call
 * (ECONNRESET). The client's own idle bound is the one that ends an idle connection, as it is with the
 * real service.
 */
export function createFakeServer(listener: RequestListener): Server {
  const server = createServer(listener);
  server.keepAliveTimeout = FAKE_KEEP_ALIVE_MS;
  return server;
}
