// The guard of the job triggers: the x-scheduled-job-secret header, compared in constant time with
// SCHEDULED_JOB_SECRET. A missing header never reaches it (the route schema requires the header: 422).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { AppError, unavailable } from '../../platform/http/errors.ts';

export const SECRET_HEADER = 'x-scheduled-job-secret';

// Hashing both sides gives equal-length buffers, so neither the comparison nor a length check
// reveals anything about the secret's length or content.
const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

export function createSecretGuard(secret: string | undefined) {
  const expected = secret === undefined ? undefined : digest(secret);
  return async function requireJobSecret(request: FastifyRequest): Promise<void> {
    if (expected === undefined) throw unavailable('Scheduled jobs are not configured: SCHEDULED_JOB_SECRET is not set');
    const presented = request.headers[SECRET_HEADER];
    const value = Array.isArray(presented) ? presented[0] : presented;
    if (typeof value !== 'string' || !timingSafeEqual(digest(value), expected)) {
      throw new AppError('unauthenticated', 'Invalid scheduled job secret');
    }
  };
}
