// What an API token may do (decision 144): the scope each operation needs, by its method and route,
// in this one table, so the guard that enforces it and the OpenAPI document that names it cannot
// drift apart. An operation without a scope (signing in, the password, two-factor, API tokens
// themselves, anything not listed) is refused to API tokens.
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
type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

/** Scopes only an admin's token may hold. */
export const ADMIN_SCOPES: readonly ApiTokenScope[] = ['admin:read', 'admin:write'];

/** Exchange operations that read public market data rather than the account's. */
const MARKET_DATA = /^\/api\/exchange\/(markets|quotes|route|supported|ticker|health)(\/|$)/;

/**
 * The scope an API token needs for this operation (Fastify's route template), or undefined when tokens may not call it.
 */
export function scopeOf(method: string, route: string): ApiTokenScope | undefined {
  const read = method === 'GET' || method === 'HEAD';
  const under = (...prefixes: string[]) =>
    prefixes.some((prefix) => route === prefix || route.startsWith(`${prefix}/`));
  if (under('/api/stream')) return 'stream:read';
  if (under('/api/v1/market') || MARKET_DATA.test(route)) return read ? 'market:read' : undefined;
  if (under('/api/exchange', '/api/portfolio')) return read ? 'account:read' : 'account:write';
  if (under('/api/orders')) return read ? 'trade:read' : 'trade:write';
  if (route === '/api/auth/me') return read ? 'account:read' : undefined;
  // Passkeys sign in and guard the account: a session's business only, as passwords and TOTP are.
  if (under('/api/auth/passkeys')) return undefined;
  if (under('/api/v1/tracker', '/api/tracker')) return read ? 'tracker:read' : 'tracker:write';
  if (under('/api/trading', '/api/paper', '/api/strategies')) return read ? 'trade:read' : 'trade:write';
  // A hook's list shows what can place orders in the account: managing hooks is trading's to write.
  if (under('/api/signals/hooks')) return 'trade:write';
  if (under('/api/notifications')) return read ? 'account:read' : 'account:write';
  if (under('/api/admin', '/api/v1/admin', '/api/v1/dashboard')) return read ? 'admin:read' : 'admin:write';
  return undefined;
}
