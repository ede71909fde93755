import type { FastifyRequest } from 'fastify';
import { currentUser } from '../../../platform/auth/guards.ts';
import type { RequestContext } from '../credentials.service.ts';

export function requestContext(request: FastifyRequest): RequestContext {
  return { userId: currentUser(request).id, ip: request.ip };
}
