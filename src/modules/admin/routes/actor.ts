import type { FastifyRequest } from 'fastify';
import { currentUser } from '../../../platform/auth/guards.ts';
import type { AdminActor } from '../user-rules.ts';

/** The signed-in admin and the client address, as the audit trail records them. */
export function adminActor(request: FastifyRequest): AdminActor {
  return { id: currentUser(request).id, ip: request.ip };
}
