// Which way a call to an outside system failed to reach it (refused, timed out, reset, name not
// resolved, no route), read from the error and its causes: the socket's code as Node and undici give
// it, or as ccxt copies it into its own message. An error that names none of these is not an outage
// but a failure of ours (a TypeError in our code), and is logged as the bug it is (decision 396).
import type { TransportFailure } from './http/errors.ts';

const BY_CODE: Readonly<Record<string, TransportFailure>> = {
  ECONNREFUSED: 'refused',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ECONNRESET: 'reset',
  ECONNABORTED: 'reset',
  EPIPE: 'reset',
  UND_ERR_SOCKET: 'reset',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_FAIL: 'dns',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ENETDOWN: 'unreachable',
};

const CODE_IN_MESSAGE = new RegExp(`\\b(${Object.keys(BY_CODE).join('|')})\\b`);

/** The failure and the code that tells it, or undefined when the error is no failure to reach anything. */
export function transportFailureOf(error: unknown, depth = 0): { failure: TransportFailure; code: string } | undefined {
  if (!error || typeof error !== 'object' || depth > 8) return undefined;
  const { code, name, message, cause, errors } = error as {
    code?: unknown;
    name?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string' && BY_CODE[code]) return { failure: BY_CODE[code], code };
  // AbortSignal.timeout's reason: the bound given to the call ran out.
  if (name === 'TimeoutError') return { failure: 'timeout', code: 'TimeoutError' };
  const said = typeof message === 'string' ? CODE_IN_MESSAGE.exec(message)?.[1] : undefined;
  if (said) return { failure: BY_CODE[said]!, code: said };
  // A connection tried on several addresses fails with every address's error.
  if (Array.isArray(errors))
    for (const each of errors) {
      const found = transportFailureOf(each, depth + 1);
      if (found) return found;
    }
  return transportFailureOf(cause, depth + 1);
}
