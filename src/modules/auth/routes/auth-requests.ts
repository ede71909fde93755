// What the auth module's route files share: the tag, and what a request tells about its client.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignIn } from '../auth.service.ts';
import { deviceCookieHeader, readDeviceCookie } from '../device-cookie.ts';

export const tags = ['auth'];

/** The client a session records, from the request. */
export const clientOf = (request: FastifyRequest) => ({
  ip: request.ip,
  userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : undefined,
});

/** The client, with the device cookie a sign-in counts it by (decision 196). */
export const signInClientOf = (request: FastifyRequest) => ({
  ...clientOf(request),
  device: readDeviceCookie(request.headers.cookie),
});

/** A completed sign-in sets its device cookie (decision 196). */
export function signedIn<T extends SignIn>(request: FastifyRequest, reply: FastifyReply, signIn: T): T {
  void reply.header('cache-control', 'no-store');
  if ('device' in signIn)
    void reply.header('set-cookie', deviceCookieHeader(signIn.device, request.protocol === 'https'));
  return signIn;
}
