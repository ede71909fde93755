// Who made a request, as services and the audit trail see it: the signed-in user and the client's
// address. Routes pass `actorOf(request)`; services never read the request.
import type { FastifyRequest } from 'fastify';
import { currentUser } from './guards.ts';

export interface Actor {
  id: string;
  ip?: string;
}

export function actorOf(request: FastifyRequest): Actor {
  return { id: currentUser(request).id, ip: request.ip };
}
