// A response micro-cache in front of the router, for public GET answers that are the same for every
// caller (market data). A route opts in with `config: { microCacheMs }`; its 200 answers are kept
// for that long, and repeats of the same URL are answered straight from the socket handler, without
// routing, hooks or serialisation: the framework's per-request cost is paid once per window instead
// of once per request. Answers carry `age`; callers with credentials always reach the route.
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestIdFor, SECURITY_HEADERS } from './http-conventions.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Keep this route's 200 answers for that many milliseconds and serve repeats before routing. */
    microCacheMs?: number;
  }
}

interface Entry {
  route: string;
  body: Buffer;
  /**
   * Name, value, name, value...: what writeHead takes with the least work, built once when the answer is
   * stored. The last two pairs are `x-request-id` and `age`, whose values are filled in for each answer.
   */
  headers: string[];
  storedAt: number;
  expiresAt: number;
}

interface MicroCache {
  /** Answers from the cache when it can; false hands the request on to the framework. */
  serve(request: IncomingMessage, response: ServerResponse): boolean;
  register(app: FastifyInstance): void;
  /** Called for each answer served from the cache (metrics). */
  onServed?: (route: string) => void;
}

const MAX_ENTRIES = 2_000;
/**
 * The bodies held at most, in bytes: the URL is the key, and URLs that differ only in a parameter no
 * route reads cost a caller nothing upstream, so entries are bounded by size too (decision 745).
 */
export const MICRO_CACHE_MAX_BYTES = 32 * 1024 * 1024;
const STORED_HEADERS = ['content-type', 'cache-control'];
/** `age` values as text, made once: an entry lives seconds, not minutes. */
const AGES = Array.from({ length: 60 }, (_, seconds) => String(seconds));

export function createMicroCache(now: () => number = Date.now): MicroCache {
  const entries = new Map<string, Entry>();
  let heldBytes = 0;
  const forget = (url: string) => {
    const entry = entries.get(url);
    if (!entry) return;
    entries.delete(url);
    heldBytes -= entry.body.length;
  };

  const cache: MicroCache = {
    serve(request, response) {
      if (request.method !== 'GET' || request.headers.authorization || request.headers.cookie) return false;
      const entry = entries.get(request.url ?? '');
      if (!entry) return false;
      const at = now();
      if (entry.expiresAt <= at) {
        forget(request.url ?? '');
        return false;
      }
      const { headers } = entry;
      const age = Math.floor((at - entry.storedAt) / 1000);
      headers[headers.length - 3] = requestIdFor(request);
      headers[headers.length - 1] = AGES[age] ?? String(age);
      // writeHead renders the array into the header block before it returns and keeps no reference to
      // it, so the entry's one array serves every answer without a copy.
      response.writeHead(200, headers);
      response.end(entry.body);
      cache.onServed?.(entry.route);
      return true;
    },

    register(app) {
      app.addHook('onSend', (request, reply, payload, done) => {
        const ttl = request.routeOptions.config.microCacheMs;
        if (
          ttl &&
          request.method === 'GET' &&
          reply.statusCode === 200 &&
          !request.headers.authorization &&
          !request.user &&
          (typeof payload === 'string' || Buffer.isBuffer(payload))
        ) {
          const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
          const headers: string[] = [];
          for (const name of STORED_HEADERS) {
            const value = reply.getHeader(name);
            if (typeof value === 'string') headers.push(name, value);
          }
          for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.push(name, value);
          headers.push('content-length', String(body.length), 'x-request-id', '', 'age', '0');
          const at = now();
          forget(request.url);
          heldBytes += body.length;
          entries.set(request.url, {
            route: request.routeOptions.url ?? 'unmatched',
            body,
            headers,
            storedAt: at,
            expiresAt: at + ttl,
          });
          // Maps keep insertion order: the first key is the oldest entry.
          while (entries.size > MAX_ENTRIES || (heldBytes > MICRO_CACHE_MAX_BYTES && entries.size > 1))
            forget(entries.keys().next().value!);
        }
        done(null, payload);
      });
    },
  };
  return cache;
}
