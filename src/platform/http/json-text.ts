// Answers whose JSON text is ready before the reply: a body kept serialised in a cache, or a page the
// database wrote as JSON (decision 184). They are sent as they are, never parsed and serialised again.
import type { FastifyReply } from 'fastify';

/** Sends `json`, the complete body, as it is: a string with a JSON content type is not serialised. */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}
