// What the sign-in operations answer: the account as the API shows it, and the refusals that say
// "authenticate again" (401 with `WWW-Authenticate: Bearer`).
import { AppError } from '../../platform/http/errors.ts';
import { iso } from '../../platform/http/schemas.ts';
import type { UserRow } from '../users/index.ts';
import type { Account } from './auth.schemas.ts';

/** The account as the API shows it. */
export function toAccount(user: UserRow): Account {
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    role: user.role,
    subscriptionTier: user.subscriptionTier,
    status: user.status,
    emailVerified: user.emailVerified,
    twoFactorEnabled: user.twoFactorEnabled,
    createdAt: iso(user.createdAt)!,
    lastLogin: iso(user.lastLogin),
  };
}

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
