// The scopes an API token may hold (decision 144). Which one an operation needs, or that no token may
// call it, is said by the route itself (`config.tokenScope`, decision 235; route-scopes.ts).
export const API_TOKEN_SCOPES = [
  'market:read',
  'account:read',
  'account:write',
  'stream:read',
  'tracker:read',
  'tracker:write',
  'trade:read',
  'trade:write',
  'admin:read',
  'admin:write',
] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

/** Scopes only an admin's token may hold. */
export const ADMIN_SCOPES: readonly ApiTokenScope[] = ['admin:read', 'admin:write'];
