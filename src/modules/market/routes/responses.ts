// What market routes share: the error responses they document, and sending an answer serialised
// once by the route's response schema however often it is asked for.
import type { FastifyReply } from 'fastify';
import type { TSchema } from 'typebox';
import { sendJsonText } from '../../../platform/http/json-text.ts';
import { Detail, errorResponses } from '../../../platform/http/schemas.ts';

/**
 * 502/503/504 from the upstreams, 404 for unknown symbols where a symbol is taken, and 422 when there are parameters.
 */
export function marketErrors(options: {
  params: boolean;
  symbols?: boolean;
  /** Its loads are charged to the caller's share of the venue's minute: 429 past it (decision 1190). */
  callerShare?: boolean;
}): Record<number, TSchema> {
  const statuses = [502, 503, 504, ...(options.symbols ? [404] : []), ...(options.callerShare ? [429] : [])];
  if (options.params) return errorResponses(...statuses);
  return Object.fromEntries(statuses.map((status) => [status, Detail]));
}

/**
 * A sender for one route. Services hand out the same answer object for as long as the answer does not
 * change (cached data, age in whole seconds), so its JSON, mapped by `wire` and made by the route's
 * response schema (`reply.serialize`), is kept with it and reused: a cached answer costs no mapping
 * and no serialisation.
 */
export function serialisingOnce<A extends object>(wire: (answer: A) => unknown) {
  const serialised = new WeakMap<A, string>();
  return (reply: FastifyReply, answer: A) => {
    let json = serialised.get(answer);
    if (json === undefined) {
      json = reply.serialize(wire(answer)) as string;
      serialised.set(answer, json);
    }
    return sendJsonText(reply, json);
  };
}
