// Where a PostgreSQL URL connects, as node-postgres (and libpq) read it: a `host` parameter overrides the
// URL's host, and a host that is a directory names the server's Unix socket there (decision 1390).

const DEFAULT_PORT = '5432';

/** The host the URL connects to: a socket's directory (starting with `/`), a name or an address. */
export function postgresHost(url: URL): string {
  return url.searchParams.get('host') || url.hostname || 'localhost';
}

/** The port, or the number in a socket's file name. */
export function postgresPort(url: URL): string {
  return url.searchParams.get('port') || url.port || DEFAULT_PORT;
}

/** Whether the URL connects through a Unix socket. */
export const viaSocket = (url: URL): boolean => postgresHost(url).startsWith('/');

/**
 * Where the URL connects, for a message: the socket's path (`/var/run/postgresql/.s.PGSQL.5432`) or
 * host:port. No user, password or database.
 */
export function postgresAddress(url: URL): string {
  const host = postgresHost(url);
  const port = postgresPort(url);
  return viaSocket(url) ? `${host.replace(/\/+$/, '')}/.s.PGSQL.${port}` : `${host}:${port}`;
}
