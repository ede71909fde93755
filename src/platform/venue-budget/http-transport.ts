// Where the venues' door finally sends (decision 530): a fetch over node:http and node:https with
// keep-alive agents, for the calls the door makes, in place of Node's fetch, whose web streams, Request
// and Response objects were a sixth of a live order's CPU and allocation in the app. What
// the caller sees is what Node's fetch gives it for the same call: the same request on the wire (its
// default headers, the body's length and type), a `Response` with the status, reason phrase, headers and
// the body decoded as fetch decodes it (gzip, deflate, br), the first redirect followed as fetch follows
// it, an abort rejected with the signal's reason, and a failure to reach the venue rejected as fetch
// rejects it (`TypeError('fetch failed')`, the socket's error as its cause). A call of any other shape (a
// `Request`, a body that is not text, a GET or HEAD with a body, a redirect mode, an option this does not
// know) goes to Node's fetch, and so does every call when Node is told to send its requests through the
// environment's proxy.
//
// One difference is kept on purpose: the answer is handed over once its body has arrived, not at its
// headers. Every caller of the door reads the whole body at once (ccxt, the market client), and the door's
// timeout (`timeoutMs`, an AbortSignal) covers the body as it did; a body cut off after its headers is
// then a failure of the call (`fetch failed`, its cause the socket's error), not of the body's read. So that
// holding a body whole holds no more than a venue's largest answer, an answer is read up to a bound, as it
// arrives and as it is decoded (`maxAnswerBytes`): past it the call is abandoned, `fetch failed` (decision 1140).
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

/** The init fields this transport honours; ccxt's `timeout` and `agent` are ignored here as fetch ignores them. */
const KNOWN_INIT = new Set(['method', 'headers', 'body', 'signal', 'redirect', 'timeout', 'agent']);
/** fetch's answers without a body, and its redirects. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** The methods fetch upper-cases (any other keeps its case). */
const NORMALIZED = new Map(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'].map((m) => [m.toLowerCase(), m]));
/** Headers of a request's body, dropped when a redirect turns it into a GET; and those dropped across origins. */
const BODY_HEADERS = new Set(['content-encoding', 'content-language', 'content-location', 'content-type']);
const ORIGIN_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'host']);
/** At most this many content codings are decoded, as fetch allows. */
const MAX_CODINGS = 5;
/**
 * The largest answer held, as it arrives and once decoded: Binance's exchangeInfo, the largest a venue sends
 * us, is a few MiB; the market upstream client reads 32 MiB at most (decision 1042).
 */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

const TOO_LARGE = 'ERR_ANSWER_TOO_LARGE';

/** The cause of a call abandoned for its answer's size. */
function answerTooLarge(max: number): Error {
  return Object.assign(new Error(`the answer is larger than ${max} bytes`), { code: TOO_LARGE });
}

/** Whether a failed call was abandoned for its answer's size (as it arrived or decoded), by its causes. */
export function isAnswerTooLarge(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && typeof cause === 'object' && depth < 8; depth++) {
    if ((cause as { code?: unknown }).code === TOO_LARGE) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/** Headers as fetch takes them, as name/value pairs in their order. */
function headerPairs(headers: HeadersInit | undefined): [string, string][] {
  if (!headers) return [];
  if (headers instanceof Headers || Array.isArray(headers)) return [...(headers as Iterable<[string, string]>)];
  return Object.entries(headers);
}

/** What the call would be over this transport, or undefined when it must go to fetch. */
function plainCall(
  input: string | URL | Request,
  init: RequestInit | undefined,
):
  | { url: URL; method: string; headers: [string, string][]; body: string | undefined; signal?: AbortSignal }
  | undefined {
  if (typeof input !== 'string' && !(input instanceof URL)) return undefined;
  const url = new URL(input);
  // fetch refuses a URL with credentials; node:http would send them as Basic authorization.
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return undefined;
  if (init) {
    for (const key in init)
      if (!KNOWN_INIT.has(key) && (init as Record<string, unknown>)[key] !== undefined) return undefined;
    if (init.redirect !== undefined && init.redirect !== 'follow') return undefined;
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') return undefined;
  }
  const given = init?.method ?? 'GET';
  const method = NORMALIZED.get(given.toLowerCase()) ?? given;
  const body = (init?.body as string | null | undefined) ?? undefined;
  // fetch refuses a GET or HEAD with a body before sending anything: it says so in its own words.
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) return undefined;
  return {
    url,
    method,
    headers: headerPairs(init?.headers),
    body,
    ...(init?.signal ? { signal: init.signal } : {}),
  };
}

/** The request's header list as fetch sends it: the caller's, then fetch's defaults where the caller set none. */
function wireHeaders(url: URL, method: string, pairs: [string, string][], body: string | undefined) {
  const headers: Record<string, string> = {};
  /** Each name given, lower-cased, to the spelling it was first given in. */
  const names = new Map<string, string>();
  for (const [name, given] of pairs) {
    // fetch takes every value as text (WebIDL ByteString): a number or an undefined in a record too.
    const value = String(given);
    const lower = name.toLowerCase();
    const first = names.get(lower);
    // fetch joins a repeated name's values with ", ", under its first spelling.
    if (first !== undefined) headers[first] = `${headers[first]}, ${value}`;
    else {
      headers[name] = value;
      names.set(lower, name);
    }
  }
  if (body !== undefined) {
    if (!names.has('content-type')) headers['content-type'] = 'text/plain;charset=UTF-8';
  }
  if (!names.has('accept')) headers.accept = '*/*';
  if (!names.has('accept-language')) headers['accept-language'] = '*';
  if (!names.has('sec-fetch-mode')) headers['sec-fetch-mode'] = 'cors';
  if (!names.has('user-agent')) headers['user-agent'] = 'node';
  if (!names.has('accept-encoding'))
    headers['accept-encoding'] = url.protocol === 'https:' ? 'br, gzip, deflate' : 'gzip, deflate';
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  else if (method === 'POST' || method === 'PUT') headers['content-length'] = '0';
  return headers;
}

/** fetch's failure to reach the server: a TypeError whose cause is the socket's error. */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

const SYNC_FLUSH = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_FLUSH = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

/** One content coding's decoder as fetch's, its output at most `max` bytes, or undefined for a coding fetch leaves as it is. */
function decoderOf(coding: string, max: number): ((raw: Buffer) => Promise<Buffer>) | undefined {
  const run =
    (decode: (raw: Buffer, options: zlib.ZlibOptions, done: (error: Error | null, out: Buffer) => void) => void) =>
    (raw: Buffer) =>
      new Promise<Buffer>((resolve, reject) =>
        decode(raw, { ...SYNC_FLUSH, maxOutputLength: max }, (e, out) => (e ? reject(e) : resolve(out))),
      );
  if (coding === 'gzip' || coding === 'x-gzip') return run(zlib.gunzip);
  // fetch takes a deflate body with or without its zlib header, by its first byte.
  if (coding === 'deflate')
    return (raw) => (raw.length > 0 && (raw[0]! & 0x0f) === 0x08 ? run(zlib.inflate) : run(zlib.inflateRaw))(raw);
  if (coding === 'br')
    return (raw) =>
      new Promise((resolve, reject) =>
        zlib.brotliDecompress(raw, { ...BROTLI_FLUSH, maxOutputLength: max }, (e, out) =>
          e ? reject(e) : resolve(out),
        ),
      );
  return undefined;
}

/** The body as fetch hands it over: decoded in the reverse order of its codings, or as it came when one is unknown. */
async function decoded(raw: Buffer, contentEncoding: string | undefined, max: number): Promise<Buffer> {
  if (!contentEncoding) return raw;
  const codings = contentEncoding.toLowerCase().split(',');
  if (codings.length > MAX_CODINGS)
    throw new Error(`too many content-encodings in response: ${codings.length}, maximum allowed is ${MAX_CODINGS}`);
  const decoders = [];
  for (let i = codings.length - 1; i >= 0; i--) {
    const decoder = decoderOf(codings[i]!.trim(), max);
    if (!decoder) return raw;
    decoders.push(decoder);
  }
  let body = raw;
  for (const decode of decoders) body = await decode(body);
  return body;
}

export interface HttpTransportOptions {
  /** How long an idle kept-alive socket is kept (ms): fetch's default, 4 s, unless the venue says less. */
  keepAliveMs?: number;
  /** The largest answer held, as it arrives and decoded (MAX_ANSWER_BYTES unless a test names less). */
  maxAnswerBytes?: number;
  /** The process's environment and node options, read for the proxy switch (tests give their own). */
  env?: NodeJS.ProcessEnv;
  execArgv?: readonly string[];
}

/**
 * Node (24, and 22 from 22.21) sends fetch and its global agents through HTTP_PROXY/HTTPS_PROXY when told
 * to (`NODE_USE_ENV_PROXY`, `--use-env-proxy`); agents of our own would not follow, so then every call
 * goes to fetch.
 */
function envProxyAsked(env: NodeJS.ProcessEnv, execArgv: readonly string[]): boolean {
  const value = env.NODE_USE_ENV_PROXY;
  return (
    (value !== undefined && value !== '' && value !== '0') ||
    execArgv.includes('--use-env-proxy') ||
    (env.NODE_OPTIONS ?? '').includes('--use-env-proxy')
  );
}

/**
 * A fetch for the venues' door. `fallback` (Node's fetch) takes the calls this does not make itself, and a
 * redirect's next request, as fetch would have made it.
 */
export function createHttpTransport(fallback: typeof fetch, options: HttpTransportOptions = {}) {
  const keepAliveMs = options.keepAliveMs ?? 4_000;
  const maxAnswerBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  const toFetch = envProxyAsked(options.env ?? process.env, options.execArgv ?? process.execArgv);
  const agents = {
    'http:': new http.Agent({ keepAlive: true, timeout: keepAliveMs, scheduling: 'lifo' }),
    'https:': new https.Agent({ keepAlive: true, timeout: keepAliveMs, scheduling: 'lifo' }),
  };

  function send(call: NonNullable<ReturnType<typeof plainCall>>, init: RequestInit | undefined): Promise<Response> {
    const { url, method, body, signal } = call;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      let request: http.ClientRequest;
      const finish = (error: unknown, response?: Response | Promise<Response>) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        if (error !== undefined) reject(error);
        else resolve(response!);
      };
      function onAbort() {
        finish(signal!.reason);
        request.destroy();
      }
      const protocol = url.protocol as 'http:' | 'https:';
      const client = protocol === 'https:' ? https : http;
      try {
        request = client.request(url, {
          method,
          headers: wireHeaders(url, method, call.headers, body),
          agent: agents[protocol],
        });
      } catch (error) {
        // An invalid header name or value: fetch refuses it before sending, as a TypeError.
        finish(error instanceof TypeError ? error : fetchFailed(error));
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      request.on('error', (error) => finish(fetchFailed(error)));
      request.on('response', (answer) => {
        const status = answer.statusCode ?? 0;
        const location = answer.headers.location;
        if (REDIRECTS.has(status) && location !== undefined) {
          answer.resume();
          try {
            finish(undefined, followed(call, init, status, new URL(location, url)));
          } catch (error) {
            finish(fetchFailed(error));
          }
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        answer.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received <= maxAnswerBytes) chunks.push(chunk);
          else {
            // Abandoned: nothing more is read or held, and the connection is not kept.
            finish(fetchFailed(answerTooLarge(maxAnswerBytes)));
            request.destroy();
          }
        });
        answer.on('error', (error) => finish(fetchFailed(error)));
        // Closed before its end without an error of its own: cut off all the same.
        answer.on('close', () => {
          if (!answer.complete) finish(fetchFailed(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })));
        });
        answer.on('end', () => {
          if (settled) return;
          const headers = new Headers();
          const raw = answer.rawHeaders;
          for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
          const noBody = method === 'HEAD' || NULL_BODY.has(status);
          const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          (noBody ? Promise.resolve(null) : decoded(bytes, answer.headers['content-encoding'], maxAnswerBytes)).then(
            (content) => {
              try {
                finish(
                  undefined,
                  new Response(content as Uint8Array<ArrayBuffer> | null, {
                    status,
                    statusText: answer.statusMessage ?? '',
                    headers,
                  }),
                );
              } catch (error) {
                finish(fetchFailed(error));
              }
            },
            (error: unknown) =>
              finish(
                fetchFailed(
                  (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
                    ? answerTooLarge(maxAnswerBytes)
                    : error,
                ),
              ),
          );
        });
      });
      request.end(body);
    });
  }

  /** A redirect's next request as fetch makes it: a POST's 301/302 and any 303 become a GET without body. */
  function followed(
    call: NonNullable<ReturnType<typeof plainCall>>,
    init: RequestInit | undefined,
    status: number,
    next: URL,
  ): Promise<Response> {
    const toGet =
      ((status === 301 || status === 302) && call.method === 'POST') ||
      (status === 303 && call.method !== 'GET' && call.method !== 'HEAD');
    const crossOrigin = next.origin !== call.url.origin;
    const headers = call.headers.filter(([name]) => {
      const lower = name.toLowerCase();
      return !(toGet && BODY_HEADERS.has(lower)) && !(crossOrigin && ORIGIN_HEADERS.has(lower));
    });
    const {
      timeout: _timeout,
      agent: _agent,
      ...rest
    } = (init ?? {}) as RequestInit & { timeout?: unknown; agent?: unknown };
    return fallback(next, {
      ...rest,
      method: toGet ? 'GET' : call.method,
      headers,
      body: toGet ? null : (call.body ?? null),
    });
  }

  const transport = ((input: string | URL | Request, init?: RequestInit) => {
    if (toFetch) return fallback(input, init);
    let call: ReturnType<typeof plainCall>;
    try {
      call = plainCall(input, init);
    } catch {
      // A URL fetch cannot parse either: fetch says so in its own words.
      return fallback(input, init);
    }
    return call ? send(call, init) : fallback(input, init);
  }) as typeof fetch;

  return {
    fetch: transport,
    /**
     * Closes the idle kept-alive sockets (at the platform's close). A call still under way keeps its socket
     * and gets its answer, as it would over fetch: a job that the shutdown waits for may be reading a venue;
     * its socket, idle afterwards, closes after the keep-alive (an idle socket holds no process open).
     */
    close(): void {
      for (const agent of Object.values(agents))
        for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
    },
  };
}
