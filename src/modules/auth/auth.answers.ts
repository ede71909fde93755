// The refusals of the sign-in operations that say "authenticate again" (401 with
// `WWW-Authenticate: Bearer`).
import { AppError } from '../../platform/http/errors.ts';

export const invalidCredentials = () =>
  new AppError('unauthenticated', 'Incorrect email or password', { headers: { 'www-authenticate': 'Bearer' } });
export const invalidMfaToken = () =>
  new AppError('unauthenticated', 'Invalid or expired mfa_token; sign in again', {
    headers: { 'www-authenticate': 'Bearer' },
  });
export const wrongSecondFactor = () =>
  new AppError('unauthenticated', 'Invalid two-factor code', { headers: { 'www-authenticate': 'Bearer' } });
export const invalidRefresh = () =>
  new AppError('unauthenticated', 'Invalid or expired refresh token', { headers: { 'www-authenticate': 'Bearer' } });
