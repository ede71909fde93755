// How a webhook request is let in (decision 060). Before the body: the admission gate answers 503
// for a receiver without a secret and 401 for headers that already fail, so such an upload is never
// buffered. The body is then read here rather than by the platform's JSON parser: its MAC is
// computed chunk by chunk as it arrives, within the receiver's size limit, and the JSON is parsed
// only after the signature matched, so a refused body never becomes a JSON tree, however large,
// deep or malformed it is.
import type { Hmac } from 'node:crypto';
import type { Readable } from 'node:stream';
import { errorCodes, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { AppError, rateLimited } from '../../../platform/http/errors.ts';
import { parseJsonBody } from '../../../platform/http/json-body.ts';
import type { AdmissionService, Gate } from '../admission.service.ts';
import { startMac } from '../signatures.ts';
import type { WebhookProvider } from '../providers/registry.ts';

type OpenGate = Extract<Gate, { open: true }>;

interface Admitted {
  provider: WebhookProvider;
  gate: OpenGate;
  /** The body has been checked against the signature, or had none to carry. */
  settled: boolean;
}

const admitted = new WeakMap<FastifyRequest, Admitted>();

/** How long a sender refused for want of room is asked to wait. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * The bytes unverified bodies hold beyond what any request may hold on its own (decision 961): a body's
 * first `freeBytes` (the platform's BODY_LIMIT_BYTES) are its own, the rest of every body whose MAC has
 * not matched yet shares `limitBytes`. Without it, each stranger's connection could make us hold a whole
 * receiver's limit (25 MiB for the code host) until its signature failed, as many at once as it opens.
 */
export interface UnverifiedBytes {
  limitBytes: number;
  freeBytes: number;
}

/** One body's share of the pool: charged as its bytes arrive, given back when it is settled. */
function createPool(settings: UnverifiedBytes) {
  let held = 0;
  return {
    open() {
      let charged = 0;
      return {
        /** Charges the body's bytes beyond its own; false (nothing charged) when the pool cannot hold them. */
        grow(received: number): boolean {
          const wanted = Math.max(0, received - settings.freeBytes);
          if (wanted <= charged) return true;
          if (held + wanted - charged > settings.limitBytes) return false;
          held += wanted - charged;
          charged = wanted;
          return true;
        },
        release(): void {
          held -= charged;
          charged = 0;
        },
      };
    },
  };
}

type PoolShare = ReturnType<ReturnType<typeof createPool>['open']>;

/** Fastify's rule for a request without a body: its parser never runs. */
function hasNoBody(request: FastifyRequest): boolean {
  const { headers } = request;
  return (
    headers['content-type'] === undefined &&
    headers['transfer-encoding'] === undefined &&
    (headers['content-length'] ?? '0') === '0'
  );
}

/** The route's onRequest step: admit on the headers, or answer before reading the body. */
export function admitDelivery(
  admission: Pick<AdmissionService, 'admit' | 'judge'>,
  provider: WebhookProvider,
  errorBody: (status: number, detail: unknown) => Record<string, unknown>,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    let gate = await admission.admit(provider, request.headers);
    if (gate.open && gate.signature && hasNoBody(request)) {
      const detail = await admission.judge(provider, gate.signature, startMac(gate.signature).digest());
      gate = detail === undefined ? { open: true, verified: true } : { open: false, status: 401, detail };
    }
    if (!gate.open) {
      // Answered here, not thrown: a refusal is not an error of ours to log (a 503 would be, with a stack).
      return reply.code(gate.status).send(errorBody(gate.status, gate.detail));
    }
    admitted.set(request, { provider, gate, settled: !gate.signature });
    return undefined;
  };
}

/** Whether the request was admitted and its body verified (or accepted unsigned where allowed). */
export function admissionOf(request: FastifyRequest): { verified: boolean } {
  const entry = admitted.get(request);
  if (!entry?.settled)
    throw new AppError('internal', 'Internal Server Error', { cause: new Error('webhook body was not verified') });
  return { verified: entry.gate.verified };
}

/**
 * Reads the body within `limit`, feeding each chunk to the MAC as it comes. The chunks are joined
 * only by the caller, once the MAC has matched: a refused body is never even copied.
 */
function readBody(
  payload: Readable,
  declaredLength: number,
  limit: number,
  mac: Hmac | undefined,
  share: PoolShare | undefined,
  busy: () => Error,
): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      payload.removeListener('close', onClose);
    };
    function onData(chunk: Buffer) {
      received += chunk.length;
      if (received > limit) {
        stop();
        reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        return;
      }
      if (share && !share.grow(received)) {
        stop();
        reject(busy());
        return;
      }
      mac?.update(chunk);
      chunks.push(chunk);
    }
    function onEnd() {
      stop();
      if (!Number.isNaN(declaredLength) && received !== declaredLength)
        reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      else resolve(chunks);
    }
    function onError(error: Error & { statusCode?: number }) {
      stop();
      error.statusCode ??= 400;
      reject(error);
    }
    // Closed before its end (the client went away): settled, so what it held is given back.
    function onClose() {
      stop();
      reject(Object.assign(new Error('request body aborted'), { statusCode: 400 }));
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
    payload.on('close', onClose);
    payload.resume();
  });
}

/**
 * The JSON parser of the receivers' scope (the platform's one, decision 095, runs on the bytes only
 * after this has verified them). Non-JSON bodies still find no parser and answer 415.
 */
export function registerSignedBodyParser(
  app: FastifyInstance,
  admission: Pick<AdmissionService, 'judge' | 'busy'>,
  unverified: UnverifiedBytes,
): void {
  const pool = createPool(unverified);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', async (request: FastifyRequest, payload: Readable) => {
    const entry = admitted.get(request);
    if (!entry)
      throw new AppError('internal', 'Internal Server Error', {
        cause: new Error('webhook body read before admission'),
      });
    const limit = request.routeOptions.bodyLimit;
    const declared = Number(request.headers['content-length']);
    if (declared > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
    const { signature } = entry.gate;
    const mac = signature ? startMac(signature) : undefined;
    // Only a body still to be verified draws on the pool; it is given back once its MAC is judged.
    const share = mac ? pool.open() : undefined;
    const busy = () => {
      admission.busy(entry.provider);
      return rateLimited(BUSY_RETRY_AFTER_SECONDS, 'Too many webhook bodies are being received at once; retry later');
    };
    try {
      const chunks = await readBody(payload, declared, limit, mac, share, busy);
      if (signature && mac) {
        const refusal = await admission.judge(entry.provider, signature, mac.digest());
        if (refusal !== undefined) throw new AppError('unauthenticated', refusal);
        entry.settled = true;
      }
      return parsedBody(request, chunks);
    } finally {
      share?.release();
    }
  });
}

/** The verified bytes, kept as the raw body and parsed (the platform's parser, decision 095). */
function parsedBody(request: FastifyRequest, chunks: Buffer[]): unknown {
  const bytes = Buffer.concat(chunks);
  request.rawBody = bytes;
  if (bytes.length === 0) return undefined;
  const parsed = parseJsonBody(bytes);
  if ('error' in parsed) throw parsed.error;
  return parsed.value;
}
